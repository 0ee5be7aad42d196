// Command compare runs a scheduler (`quotient schedule`, or anything with the same CLI and JSON
// report, such as test/kai-oracle) on every translated case under test/kai-cases and matches its
// report against the case's kai-expected.json with the rule of test/scenarios/scenario_test.cc:
// objects match when every key the expectation lists matches, arrays must have the same length
// and match element by element, scalars must be equal.
//
//	go run ./cmd/compare -bin ../../build/dev/src/bin/quotient [-cases ../kai-cases] [-j 2]
//	                     [-json results.json] [-v] [-filter SUBSTRING]
//
// `-bin` may be given several times (e.g. quotient and the oracle): each is run and matched, and
// the summary has one column per binary plus their agreement on the asserted keys.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

type binList []string

func (b *binList) String() string     { return strings.Join(*b, ",") }
func (b *binList) Set(s string) error { *b = append(*b, s); return nil }

type runResult struct {
	Bin      string   `json:"bin"`
	ExitCode int      `json:"exitCode"`
	Match    bool     `json:"match"`
	Errors   []string `json:"errors,omitempty"`
	Stderr   string   `json:"stderr,omitempty"`
	Seconds  float64  `json:"seconds"`
	report   any
}

type caseResult struct {
	Folder  string      `json:"folder"`
	KaiFile string      `json:"kaiFile"`
	Runs    []runResult `json:"runs"`
	// Agree: every binary's report gives the same values at the keys kai-expected.json lists.
	Agree bool `json:"agree"`
}

func main() {
	var bins binList
	flag.Var(&bins, "bin", "scheduler binary with `schedule` subcommand (repeatable)")
	casesDir := flag.String("cases", "", "cases folder (default: ../kai-cases next to this module)")
	root := flag.String("root", "", "repository root for $ROOT (default: two levels above -cases)")
	jobs := flag.Int("j", 2, "parallel runs")
	jsonOut := flag.String("json", "", "write per-case results as JSON here")
	verbose := flag.Bool("v", false, "print every failing case with its first mismatches")
	filter := flag.String("filter", "", "only cases whose folder contains this")
	timeout := flag.Duration("timeout", 120*time.Second, "per-run timeout")
	flag.Parse()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "compare: give -bin")
		os.Exit(2)
	}
	if *casesDir == "" {
		wd, _ := os.Getwd()
		*casesDir = filepath.Join(wd, "..", "kai-cases")
	}
	abs, err := filepath.Abs(*casesDir)
	if err != nil {
		fatal(err)
	}
	*casesDir = abs
	if *root == "" {
		*root = filepath.Dir(filepath.Dir(*casesDir))
	}
	for i, b := range bins {
		if a, err := filepath.Abs(b); err == nil && !strings.Contains(b, " ") {
			if _, statErr := os.Stat(a); statErr == nil {
				bins[i] = a
			}
		}
	}

	var folders []string
	err = filepath.Walk(*casesDir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if _, err := os.Stat(filepath.Join(path, "args.txt")); err == nil {
				rel, _ := filepath.Rel(*casesDir, path)
				if *filter == "" || strings.Contains(rel, *filter) {
					folders = append(folders, rel)
				}
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		fatal(err)
	}
	sort.Strings(folders)

	results := make([]caseResult, len(folders))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *jobs))
	for i, f := range folders {
		wg.Add(1)
		go func(i int, f string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runCase(*casesDir, *root, f, bins, *timeout)
		}(i, f)
	}
	wg.Wait()

	printSummary(results, bins, *verbose)
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*jsonOut, data, 0o644); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(1)
}

var testFileRE = regexp.MustCompile("`(pkg/[A-Za-z0-9_./-]+_test\\.go)`")

func kaiFileOf(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err == nil {
		if m := testFileRE.FindSubmatch(data); m != nil {
			return string(m[1])
		}
	}
	return filepath.Base(filepath.Dir(dir))
}

func readArgs(dir, root string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, "args.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.ReplaceAll(line, "$SCENARIO", dir)
		line = strings.ReplaceAll(line, "$ROOT", root)
		out = append(out, line)
	}
	return out, s.Err()
}

func runCase(casesDir, root, folder string, bins []string, timeout time.Duration) caseResult {
	dir := filepath.Join(casesDir, folder)
	res := caseResult{Folder: folder, KaiFile: kaiFileOf(dir)}
	expectedData, err := os.ReadFile(filepath.Join(dir, "kai-expected.json"))
	var expected any
	if err == nil {
		err = json.Unmarshal(expectedData, &expected)
	}
	args, argErr := readArgs(dir, root)
	for _, bin := range bins {
		r := runResult{Bin: bin}
		if err != nil || argErr != nil {
			r.Errors = []string{fmt.Sprint("reading the case: ", err, argErr)}
			res.Runs = append(res.Runs, r)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		fields := strings.Fields(bin)
		cmd := exec.CommandContext(ctx, fields[0], append(append(fields[1:], "schedule"), args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		runErr := cmd.Run()
		cancel()
		r.Seconds = time.Since(start).Seconds()
		if ee, ok := runErr.(*exec.ExitError); ok {
			r.ExitCode = ee.ExitCode()
		} else if runErr != nil {
			r.ExitCode = -1
			r.Errors = append(r.Errors, runErr.Error())
		}
		if s := stderr.String(); len(s) > 4000 {
			r.Stderr = s[:4000] + "..."
		} else {
			r.Stderr = s
		}
		var report any
		if jerr := json.Unmarshal(stdout.Bytes(), &report); jerr != nil {
			r.Errors = append(r.Errors, "report is not JSON: "+jerr.Error())
		} else {
			r.report = report
			var errs []string
			match(expected, report, "$", &errs)
			r.Errors = append(r.Errors, errs...)
			r.Match = len(errs) == 0 && r.ExitCode == 0
		}
		res.Runs = append(res.Runs, r)
	}
	res.Agree = len(res.Runs) > 0
	for _, r := range res.Runs[1:] {
		if r.report == nil || res.Runs[0].report == nil || !sameAtKeys(expected, res.Runs[0].report, r.report) {
			res.Agree = false
		}
	}
	return res
}

// match appends every place where actual does not contain expected (scenario_test.cc's rule).
func match(expected, actual any, path string, errs *[]string) {
	switch e := expected.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: expected an object, got %s", path, short(actual)))
			return
		}
		keys := make([]string, 0, len(e))
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			av, ok := a[k]
			if !ok {
				*errs = append(*errs, path+"."+k+": missing")
				continue
			}
			match(e[k], av, path+"."+k, errs)
		}
	case []any:
		a, ok := actual.([]any)
		if !ok || len(a) != len(e) {
			*errs = append(*errs, fmt.Sprintf("%s: expected %d elements, got %s", path, len(e), short(actual)))
			return
		}
		for i := range e {
			match(e[i], a[i], fmt.Sprintf("%s[%d]", path, i), errs)
		}
	default:
		if !reflect.DeepEqual(expected, actual) {
			*errs = append(*errs, fmt.Sprintf("%s: expected %s, got %s", path, short(expected), short(actual)))
		}
	}
}

// sameAtKeys: a and b hold equal values at every key path the expectation lists.
func sameAtKeys(expected, a, b any) bool {
	switch e := expected.(type) {
	case map[string]any:
		am, ok1 := a.(map[string]any)
		bm, ok2 := b.(map[string]any)
		if !ok1 || !ok2 {
			return reflect.DeepEqual(a, b)
		}
		for k := range e {
			if !sameAtKeys(e[k], am[k], bm[k]) {
				return false
			}
		}
		return true
	case []any:
		al, ok1 := a.([]any)
		bl, ok2 := b.([]any)
		if !ok1 || !ok2 || len(al) != len(bl) {
			return reflect.DeepEqual(a, b)
		}
		if len(al) != len(e) {
			return false
		}
		for i := range e {
			if !sameAtKeys(e[i], al[i], bl[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}

func short(v any) string {
	data, _ := json.Marshal(v)
	s := string(data)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func printSummary(results []caseResult, bins []string, verbose bool) {
	type row struct {
		cases int
		pass  []int
		agree int
	}
	rows := map[string]*row{}
	var files []string
	total := &row{pass: make([]int, len(bins))}
	for _, r := range results {
		rw, ok := rows[r.KaiFile]
		if !ok {
			rw = &row{pass: make([]int, len(bins))}
			rows[r.KaiFile] = rw
			files = append(files, r.KaiFile)
		}
		for _, x := range []*row{rw, total} {
			x.cases++
			for i, run := range r.Runs {
				if run.Match {
					x.pass[i]++
				}
			}
			if r.Agree {
				x.agree++
			}
		}
	}
	sort.Strings(files)
	header := fmt.Sprintf("%-84s %6s", "KAI TEST FILE", "CASES")
	for _, b := range bins {
		header += fmt.Sprintf(" %18s", trimBin(b)+"=KAI")
	}
	if len(bins) > 1 {
		header += fmt.Sprintf(" %10s", "AGREE")
	}
	fmt.Println(header)
	line := func(name string, x *row) {
		s := fmt.Sprintf("%-84s %6d", name, x.cases)
		for i := range bins {
			s += fmt.Sprintf(" %18s", fmt.Sprintf("%d (%.0f%%)", x.pass[i], pct(x.pass[i], x.cases)))
		}
		if len(bins) > 1 {
			s += fmt.Sprintf(" %10d", x.agree)
		}
		fmt.Println(s)
	}
	for _, f := range files {
		line(f, rows[f])
	}
	line("TOTAL", total)
	if verbose {
		for _, r := range results {
			for _, run := range r.Runs {
				if run.Match {
					continue
				}
				errs := run.Errors
				if len(errs) > 4 {
					errs = append(errs[:4:4], fmt.Sprintf("... %d more", len(run.Errors)-4))
				}
				fmt.Printf("FAIL %s [%s] exit %d: %s\n", r.Folder, trimBin(run.Bin), run.ExitCode, strings.Join(errs, "; "))
			}
		}
	}
}

func trimBin(b string) string {
	f := strings.Fields(b)
	if len(f) == 0 {
		return b
	}
	return filepath.Base(f[0])
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
