// Package division replays the specs of KAI's resource-division tests
// (pkg/scheduler/plugins/proportion/resource_division/resource_division_test.go) outside Ginkgo,
// records the division each spec performs (its inputs, KAI's result, what the spec asserts), and
// writes the cases whose inputs a cluster can produce as scenario folders.
//
// The generated overlay file (cmd/genoverlay -division) lifts the test file's Describe trees into
// a function that calls this package's stand-ins for Ginkgo's containers and Gomega's Expect, and
// routes the calls of the division functions through recording wrappers. Nothing here is KAI's
// code; the division itself runs in KAI's package, unchanged.
package division

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

type container struct {
	text    string
	parent  *container
	befores []func()
}

type spec struct {
	path []string // container texts, outermost first, then the spec's own text
	run  func()
	at   *container
}

var (
	root    = &container{}
	current = root
	specs   []*spec
)

func reset() {
	root = &container{}
	current = root
	specs = nil
}

func nest(text string, body func()) bool {
	c := &container{text: text, parent: current}
	prev := current
	current = c
	defer func() { current = prev }()
	body()
	return true
}

func textOf(c *container) []string {
	var out []string
	for ; c != nil && c != root; c = c.parent {
		out = append([]string{c.text}, out...)
	}
	return out
}

// Describe, Context and When are Ginkgo's containers.
func Describe(text string, body func()) bool { return nest(text, body) }
func Context(text string, body func()) bool  { return nest(text, body) }
func When(text string, body func()) bool     { return nest(text, body) }

// BeforeEach registers set-up that runs, outermost first, before every spec below it.
func BeforeEach(body func()) bool {
	current.befores = append(current.befores, body)
	return true
}

// It registers a spec.
func It(text string, body func()) bool {
	specs = append(specs, &spec{path: append(textOf(current), text), run: body, at: current})
	return true
}

// TableEntry is one row of a DescribeTable.
type TableEntry struct {
	text   string
	params []any
}

// Entry is a row of a table.
func Entry(text string, params ...any) TableEntry { return TableEntry{text: text, params: params} }

// DescribeTable registers one spec per entry: the body called with the entry's parameters.
func DescribeTable(text string, body any, entries ...TableEntry) bool {
	c := &container{text: text, parent: current}
	fn := reflect.ValueOf(body)
	for _, e := range entries {
		args := make([]reflect.Value, len(e.params))
		for i, p := range e.params {
			if p == nil {
				args[i] = reflect.Zero(fn.Type().In(i))
			} else {
				args[i] = reflect.ValueOf(p)
			}
		}
		specs = append(specs, &spec{path: append(textOf(c), e.text), run: func() { fn.Call(args) }, at: c})
	}
	return true
}

// Matcher is Gomega's Equal.
type Matcher struct{ expected any }

// Equal matches with reflect.DeepEqual, as Gomega's Equal does.
func Equal(expected any) Matcher { return Matcher{expected: expected} }

// Assertion is Gomega's Expect(actual).
type Assertion struct{ actual any }

// Expect starts an assertion.
func Expect(actual any, _ ...any) Assertion { return Assertion{actual: actual} }

// To checks the matcher and records the outcome in the running spec.
func (a Assertion) To(m Matcher, _ ...any) bool {
	ok := reflect.DeepEqual(a.actual, m.expected)
	if running != nil {
		running.Expects++
		if !ok {
			running.Failures = append(running.Failures, fmt.Sprintf("expected %v, got %v", m.expected, a.actual))
		}
	}
	return ok
}

// collect runs the registration function and returns the specs sorted by their paths (stable):
// some of KAI's specs are registered while ranging over a map, in no fixed order.
func collect(register func()) []*spec {
	reset()
	register()
	sort.SliceStable(specs, func(i, j int) bool {
		a, b := specs[i].path, specs[j].path
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	return specs
}

func (s *spec) name() string { return strings.Join(s.path, " / ") }

func befores(c *container) []func() {
	var chain []*container
	for ; c != nil; c = c.parent {
		chain = append([]*container{c}, chain...)
	}
	var out []func()
	for _, x := range chain {
		out = append(out, x.befores...)
	}
	return out
}
