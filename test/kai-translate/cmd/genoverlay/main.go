// Command genoverlay writes, for `go test -overlay`, one extra test file per KAI test package of
// the catalog. The file calls the package's case functions (or a function holding a test's inline
// case table, lifted from the Test function with go/ast) and hands every case to
// quotient.dev/kai-translate/convert. The generated files live in the work folder only: KAI's
// tree is read, never written.
//
// Usage: genoverlay -kai /work/shared/kai-scheduler -work DIR
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const convertImport = "quotient.dev/kai-translate/convert"

type pkgKey struct {
	dir string // under pkg/scheduler/actions
	pkg string // package clause
}

type pkgFile struct {
	key     pkgKey
	entries []entry
	inline  []string // generated functions
	imports map[string]string
}

func main() {
	kai := flag.String("kai", "/work/shared/kai-scheduler", "KAI source tree")
	work := flag.String("work", "", "work folder for the overlay")
	flag.Parse()
	if *work == "" {
		fmt.Fprintln(os.Stderr, "genoverlay: -work is required")
		os.Exit(2)
	}
	if err := run(*kai, *work); err != nil {
		fmt.Fprintln(os.Stderr, "genoverlay:", err)
		os.Exit(1)
	}
	if err := genDivision(*kai, *work); err != nil {
		fmt.Fprintln(os.Stderr, "genoverlay:", err)
		os.Exit(1)
	}
}

func run(kai, work string) error {
	actionsRoot := filepath.Join(kai, "pkg/scheduler/actions")
	overlayDir := filepath.Join(work, "overlay")
	if err := os.MkdirAll(overlayDir, 0o755); err != nil {
		return err
	}
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	parse := func(rel string) (*ast.File, error) {
		if f, ok := parsed[rel]; ok {
			return f, nil
		}
		f, err := parser.ParseFile(fset, filepath.Join(actionsRoot, rel), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		parsed[rel] = f
		return f, nil
	}

	files := map[pkgKey]*pkgFile{}
	var order []pkgKey
	for _, e := range catalog {
		f, err := parse(e.File)
		if err != nil {
			return err
		}
		key := pkgKey{dir: filepath.Dir(e.File), pkg: f.Name.Name}
		pf, ok := files[key]
		if !ok {
			pf = &pkgFile{key: key, imports: map[string]string{}}
			files[key] = pf
			order = append(order, key)
		}
		if e.Cases == "" {
			fn, imports, err := liftInline(fset, f, e.TestFunc)
			if err != nil {
				return fmt.Errorf("%s %s: %w", e.File, e.TestFunc, err)
			}
			pf.inline = append(pf.inline, fn)
			for path, name := range imports {
				pf.imports[path] = name
			}
		} else if findFunc(f, e.TestFunc) == nil {
			return fmt.Errorf("%s: no function %s", e.File, e.TestFunc)
		}
		pf.entries = append(pf.entries, e)
	}

	// Every Test function of the catalog's files is either translated or listed as not.
	known := map[string]bool{}
	for _, e := range catalog {
		known[e.File+" "+e.TestFunc] = true
	}
	for _, n := range notTranslatedFuncs {
		known[n.File+" "+n.TestFunc] = true
	}
	dirs := map[string]bool{}
	for _, e := range catalog {
		dirs[filepath.Dir(e.File)] = true
	}
	var unknown []string
	for dir := range dirs {
		matches, _ := filepath.Glob(filepath.Join(actionsRoot, dir, "*_test.go"))
		for _, m := range matches {
			rel, _ := filepath.Rel(actionsRoot, m)
			f, err := parse(rel)
			if err != nil {
				return err
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
					if !known[rel+" "+fd.Name.Name] {
						unknown = append(unknown, rel+" "+fd.Name.Name)
					}
				}
			}
		}
	}
	sort.Strings(unknown)
	for _, u := range unknown {
		fmt.Fprintf(os.Stderr, "genoverlay: warning: test function not in the catalog: %s\n", u)
	}

	replace := map[string]string{}
	var packages []string
	for _, key := range order {
		pf := files[key]
		part := strings.ReplaceAll(key.dir, "/", "-") + "-" + key.pkg
		src, err := render(pf, part)
		if err != nil {
			return fmt.Errorf("%s: %w", part, err)
		}
		out := filepath.Join(overlayDir, part+".go")
		if err := os.WriteFile(out, src, 0o644); err != nil {
			return err
		}
		target := filepath.Join(actionsRoot, key.dir, "zz_quotient_translate_"+key.pkg+"_test.go")
		replace[target] = out
		packages = appendOnce(packages, "./pkg/scheduler/actions/"+key.dir)
	}
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "overlay.json"), data, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "packages.txt"), []byte(strings.Join(packages, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	// The KAI test functions the cases come from, per package (for selfcheck.sh).
	var tests []string
	for _, e := range catalog {
		tests = append(tests, "./pkg/scheduler/actions/"+filepath.Dir(e.File)+" "+e.TestFunc)
	}
	tests = append(tests, "./pkg/scheduler/plugins/proportion/resource_division TestProportion")
	if err := os.WriteFile(filepath.Join(work, "kai-tests.txt"), []byte(strings.Join(tests, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	var nt []map[string]string
	for _, n := range notTranslatedFuncs {
		nt = append(nt, map[string]string{"kaiFile": "pkg/scheduler/actions/" + n.File, "testFunc": n.TestFunc, "why": n.Why})
	}
	data, _ = json.MarshalIndent(nt, "", "  ")
	return os.WriteFile(filepath.Join(work, "not-translated.json"), data, 0o644)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func findFunc(f *ast.File, name string) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
			return fd
		}
	}
	return nil
}

func inlineName(testFunc string) string { return "quotientInline" + testFunc }

func render(pf *pkgFile, part string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by test/kai-translate/cmd/genoverlay for go test -overlay. DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"testing\"\n\t\"time\"\n\n\tkaitranslate %q\n", pf.key.pkg, convertImport)
	paths := make([]string, 0, len(pf.imports))
	for p := range pf.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if p == "testing" || p == "time" {
			continue
		}
		if name := pf.imports[p]; name != "" {
			fmt.Fprintf(&b, "\t%s %q\n", name, p)
		} else {
			fmt.Fprintf(&b, "\t%q\n", p)
		}
	}
	b.WriteString(")\n\nvar _ = time.Second\n\n")
	b.WriteString("func TestQuotientTranslate(t *testing.T) {\n")
	fmt.Fprintf(&b, "\td := kaitranslate.NewDumper(t, %q)\n", part)
	for _, e := range pf.entries {
		origin := e.Cases + "()"
		call := e.Cases + "()"
		if e.Cases == "" {
			origin = "inline in " + e.TestFunc
			call = inlineName(e.TestFunc) + "()"
		}
		mode := "kaitranslate.Unit"
		if e.Mode == "integration" {
			mode = "kaitranslate.Integration"
		}
		actions := "nil"
		if len(e.Actions) > 0 {
			var q []string
			for _, a := range e.Actions {
				q = append(q, strconv.Quote(a))
			}
			actions = "[]string{" + strings.Join(q, ", ") + "}"
		}
		grace := "0"
		if e.Grace != "" {
			grace = fmt.Sprintf("kaitranslate.MustDuration(%q)", e.Grace)
		}
		fmt.Fprintf(&b, "\td.Add(kaitranslate.Source{KaiFile: %q, TestFunc: %q, Origin: %q, Mode: %s, Actions: %s, StalenessGracePeriod: %s}, %s)\n",
			"pkg/scheduler/actions/"+e.File, e.TestFunc, origin, mode, actions, grace, call)
	}
	b.WriteString("\td.Finish()\n}\n")
	for _, fn := range pf.inline {
		b.WriteString("\n")
		b.WriteString(fn)
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return b.Bytes(), fmt.Errorf("formatting the generated file: %w\n%s", err, b.String())
	}
	return out, nil
}

// liftInline turns a Test function that builds its cases inline into a function returning them:
// the statements before the one that runs the cases (minus the test plumbing: the controller,
// gock, logging, infrastructure set-up), then `return <cases>`, where <cases> is the ranged table,
// the value handed to BuildSession, or the value handed to RunTests.
func liftInline(fset *token.FileSet, f *ast.File, testFunc string) (string, map[string]string, error) {
	fd := findFunc(f, testFunc)
	if fd == nil {
		return "", nil, fmt.Errorf("no function %s", testFunc)
	}
	text := func(n ast.Node) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return b.String()
	}
	var kept []ast.Stmt
	var casesExpr ast.Expr
	for _, st := range fd.Body.List {
		s := text(st)
		if strings.Contains(s, "BuildSession(") || strings.Contains(s, "RunTest(") || strings.Contains(s, "RunTests(") {
			switch x := st.(type) {
			case *ast.RangeStmt:
				casesExpr = x.X
			case *ast.AssignStmt:
				if call, ok := x.Rhs[0].(*ast.CallExpr); ok && len(call.Args) > 0 {
					casesExpr = call.Args[0]
				}
			case *ast.ExprStmt:
				if call, ok := x.X.(*ast.CallExpr); ok && len(call.Args) > 1 {
					casesExpr = call.Args[1]
				}
			}
			if casesExpr == nil {
				return "", nil, fmt.Errorf("cannot find the cases in: %s", firstLine(s))
			}
			break
		}
		if isPlumbing(st, s) {
			continue
		}
		kept = append(kept, st)
	}
	if casesExpr == nil {
		return "", nil, fmt.Errorf("no statement runs the cases")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "func %s() any {\n", inlineName(testFunc))
	var declared []string
	for _, st := range kept {
		b.WriteString(text(st))
		b.WriteString("\n")
		declared = append(declared, declaredVars(st)...)
	}
	for _, v := range declared {
		fmt.Fprintf(&b, "_ = %s\n", v)
	}
	fmt.Fprintf(&b, "return %s\n}\n", text(casesExpr))

	// The imports the lifted code uses.
	used := map[string]bool{}
	inspect := func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	}
	for _, st := range kept {
		ast.Inspect(st, inspect)
	}
	ast.Inspect(casesExpr, inspect)
	imports := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		alias := ""
		if imp.Name != nil {
			alias = imp.Name.Name
		}
		if alias == "." || alias == "_" {
			continue
		}
		name := alias
		if name == "" {
			name = defaultImportName(path)
		}
		if used[name] {
			imports[path] = alias
		}
	}
	return b.String(), imports, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func defaultImportName(path string) string {
	last := path[strings.LastIndex(path, "/")+1:]
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return strings.ReplaceAll(last, "-", "_")
}

// isPlumbing: statements of the test harness, not of the cases.
func isPlumbing(st ast.Stmt, s string) bool {
	if _, ok := st.(*ast.DeferStmt); ok {
		return true
	}
	for _, marker := range []string{"controller", "NewController", "gock.", "InitTestingInfrastructure",
		"SetSchedulerActions", "featuregates.", "t.Cleanup", "t.Log", "t.Parallel"} {
		if strings.Contains(s, marker) {
			return true
		}
	}
	return false
}

func declaredVars(st ast.Stmt) []string {
	var out []string
	switch x := st.(type) {
	case *ast.AssignStmt:
		if x.Tok == token.DEFINE {
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					out = append(out, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := x.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.Name != "_" {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}
