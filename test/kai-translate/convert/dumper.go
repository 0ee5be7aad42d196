// Package convert turns the test cases of KAI's action tests (values of KAI's own test types, as
// its test-case functions build them) into scenario folders of Kubernetes objects for
// `quotient schedule`. It is compiled into KAI's test packages at build time (go test -overlay,
// see ../README.md); nothing here is KAI's code.
package convert

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils"
)

// Mode says how the KAI test ran a case.
type Mode string

const (
	// Unit: one session built by BuildSession, the listed actions executed once, then matched.
	Unit Mode = "unit"
	// Integration: integration_tests_utils.RunTest: rounds of all five actions, the world
	// advanced between rounds, matched after RoundsUntilMatch rounds and after each of the
	// RoundsAfterMatch rounds that follow.
	Integration Mode = "integration"
)

// Source names where a group of cases comes from.
type Source struct {
	KaiFile  string   // path under the KAI tree, e.g. pkg/scheduler/actions/reclaim/reclaim_test.go
	TestFunc string   // the Test function that runs the cases
	Origin   string   // the expression that yields the cases (a function call, or "inline in <TestFunc>")
	Mode     Mode     // how they are run
	Actions  []string // the actions of a unit run
	// StalenessGracePeriod is the session's global default staleness grace period (the KAI test
	// overrides it in some test functions; BuildSession leaves it 0).
	StalenessGracePeriod time.Duration
}

// Stem is the folder name of a KAI test file: its directory under pkg/scheduler/actions (or the
// plugin directory) joined with the file's stem by '-'.
func (s Source) Stem() string {
	return FileStem(s.KaiFile)
}

// FileStem: pkg/scheduler/actions/reclaim/reclaim_test.go -> reclaim-reclaim_test;
// pkg/scheduler/actions/integration_tests/reclaim/reclaim_test.go ->
// integration_tests-reclaim-reclaim_test.
func FileStem(kaiFile string) string {
	p := filepath.ToSlash(kaiFile)
	for _, prefix := range []string{"pkg/scheduler/actions/", "pkg/scheduler/plugins/", "pkg/scheduler/"} {
		if strings.HasPrefix(p, prefix) {
			p = strings.TrimPrefix(p, prefix)
			break
		}
	}
	p = strings.TrimSuffix(p, ".go")
	return strings.ReplaceAll(p, "/", "-")
}

// PartRecord is what one case leaves in the parts index (read by cmd/assemble).
type PartRecord struct {
	Stem       string `json:"stem"`
	KaiFile    string `json:"kaiFile"`
	TestFunc   string `json:"testFunc"`
	Origin     string `json:"origin"`
	Index      int    `json:"index"`     // the case's index in its origin (KAI's testNumber)
	FileIndex  int    `json:"fileIndex"` // running number within the KAI file (the folder's NNN)
	Name       string `json:"name"`
	Folder     string `json:"folder,omitempty"` // relative to the output root; empty when skipped
	Skipped    bool   `json:"skipped"`
	SkipReason string `json:"skipReason,omitempty"`
	SkipKind   string `json:"skipKind,omitempty"`
	Mode       Mode   `json:"mode"`
	Cycles     int    `json:"cycles"`
	Caveat     string `json:"caveat,omitempty"`
}

// Dumper writes the cases of one KAI test package.
type Dumper struct {
	t        *testing.T
	root     string
	counters map[string]int
	records  []PartRecord
	part     string
}

// NewDumper reads the output root from QUOTIENT_KAI_OUT.
func NewDumper(t *testing.T, part string) *Dumper {
	root := os.Getenv("QUOTIENT_KAI_OUT")
	if root == "" {
		t.Skip("QUOTIENT_KAI_OUT is not set")
	}
	// KAI's resolver checks the configured actions against the registered ones.
	test_utils.InitTestingInfrastructure()
	return &Dumper{t: t, root: root, counters: map[string]int{}, part: part}
}

// MustDuration parses a Go duration (for generated code).
func MustDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Add converts every case in `cases` (a slice of TestTopologyBasic, of a struct embedding or
// holding one, or a single such value).
func (d *Dumper) Add(src Source, cases any) {
	v := reflect.ValueOf(cases)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		holder := reflect.New(v.Type()).Elem()
		holder.Set(v)
		d.addOne(src, 0, holder)
		return
	}
	if v.Kind() == reflect.Slice {
		// Make elements addressable (slice elements are).
		for i := 0; i < v.Len(); i++ {
			d.addOne(src, i, v.Index(i))
		}
		return
	}
	arr := reflect.New(v.Type()).Elem()
	arr.Set(v)
	for i := 0; i < arr.Len(); i++ {
		d.addOne(src, i, arr.Index(i))
	}
}

var topologyType = reflect.TypeOf(test_utils.TestTopologyBasic{})

// readable returns a value whose Interface() may be called even if it came from an unexported
// field.
func readable(v reflect.Value) reflect.Value {
	if v.CanInterface() {
		return v
	}
	if v.CanAddr() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	c := reflect.New(v.Type()).Elem()
	return c
}

type caseValue struct {
	topology         test_utils.TestTopologyBasic
	outerName        string
	roundsUntilMatch int
	roundsAfterMatch int
	schedulingDelay  time.Duration
}

func extractCase(v reflect.Value) (caseValue, bool) {
	for v.Kind() == reflect.Ptr || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return caseValue{}, false
		}
		v = v.Elem()
	}
	var out caseValue
	if v.Type() == topologyType {
		out.topology = readable(v).Interface().(test_utils.TestTopologyBasic)
		return out, true
	}
	if v.Kind() != reflect.Struct {
		return out, false
	}
	found := false
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		sf := v.Type().Field(i)
		switch {
		case f.Type() == topologyType:
			out.topology = readable(f).Interface().(test_utils.TestTopologyBasic)
			found = true
		case f.Kind() == reflect.String && strings.EqualFold(sf.Name, "name"):
			out.outerName = f.String()
		case f.Kind() == reflect.Int && sf.Name == "RoundsUntilMatch":
			out.roundsUntilMatch = int(f.Int())
		case f.Kind() == reflect.Int && sf.Name == "RoundsAfterMatch":
			out.roundsAfterMatch = int(f.Int())
		case sf.Name == "SchedulingDuration":
			out.schedulingDelay = time.Duration(f.Int())
		}
	}
	return out, found
}

func (d *Dumper) addOne(src Source, index int, v reflect.Value) {
	stem := src.Stem()
	fileIndex := d.counters[stem]
	d.counters[stem]++
	c, ok := extractCase(v)
	rec := PartRecord{Stem: stem, KaiFile: src.KaiFile, TestFunc: src.TestFunc, Origin: src.Origin,
		Index: index, FileIndex: fileIndex, Mode: src.Mode}
	if !ok {
		rec.Skipped, rec.SkipKind, rec.SkipReason = true, "not a test case", "no TestTopologyBasic in the value"
		d.records = append(d.records, rec)
		return
	}
	name := c.topology.Name
	if name == "" {
		name = c.outerName
	}
	rec.Name = name
	folder := filepath.Join(stem, fmt.Sprintf("%03d-%s", fileIndex, Slug(name)))
	result, err := func() (res *Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = &SkipError{Kind: "builder failure", Reason: fmt.Sprintf("KAI's test builders panicked: %v", r)}
			}
		}()
		return Convert(d.t, src, index, name, c)
	}()
	rec.Cycles = 1
	if err != nil {
		rec.Skipped = true
		if se, ok := err.(*SkipError); ok {
			rec.SkipKind, rec.SkipReason = se.Kind, se.Reason
		} else {
			rec.SkipKind, rec.SkipReason = "error", err.Error()
		}
		d.records = append(d.records, rec)
		return
	}
	rec.Cycles = result.Cycles
	rec.Caveat = result.Caveat
	rec.Folder = filepath.ToSlash(folder)
	dir := filepath.Join(d.root, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		d.t.Fatalf("mkdir %s: %v", dir, err)
	}
	for _, f := range result.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			d.t.Fatalf("write %s: %v", f.Name, err)
		}
	}
	d.records = append(d.records, rec)
}

// Finish writes the parts index for this package.
func (d *Dumper) Finish() {
	dir := filepath.Join(d.root, ".parts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		d.t.Fatal(err)
	}
	sort.SliceStable(d.records, func(i, j int) bool {
		if d.records[i].Stem != d.records[j].Stem {
			return d.records[i].Stem < d.records[j].Stem
		}
		return d.records[i].FileIndex < d.records[j].FileIndex
	})
	data, err := json.MarshalIndent(d.records, "", "  ")
	if err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, d.part+".json"), data, 0o644); err != nil {
		d.t.Fatal(err)
	}
	converted, skipped := 0, 0
	for _, r := range d.records {
		if r.Skipped {
			skipped++
		} else {
			converted++
		}
	}
	d.t.Logf("%s: %d cases converted, %d skipped", d.part, converted, skipped)
}

// Slug makes a folder-name fragment of a case name.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	if s == "" {
		s = "case"
	}
	return s
}

// SkipError marks a case that Kubernetes objects cannot express.
type SkipError struct {
	Kind   string
	Reason string
}

func (e *SkipError) Error() string { return e.Kind + ": " + e.Reason }

func skip(kind, format string, args ...any) error {
	return &SkipError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}
