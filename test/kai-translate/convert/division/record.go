package division

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/common_info"
	rs "github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/plugins/proportion/resource_share"
)

// This package is compiled into KAI's resource_division test package, so it imports nothing that
// imports that package (no test_utils, no plugins): it only records. cmd/divisioncases turns the
// records into scenario folders.

type queues = map[common_info.QueueID]*rs.QueueAttributes

// Call is one call of a division function: its inputs and KAI's result.
type Call struct {
	Fn        string                         `json:"fn"`
	Totals    map[string]float64             `json:"totals"` // resource -> amount given to the division
	K         float64                        `json:"kValue"`
	Before    map[string]*rs.QueueAttributes `json:"before"`
	After     map[string]*rs.QueueAttributes `json:"after"`
	Created   map[string]int64               `json:"createdUnixNano"` // queue creation times, exactly
	Remaining float64                        `json:"remaining"`
}

// Capture is what one spec did.
type Capture struct {
	Index    int                 `json:"index"`
	Path     []string            `json:"path"`
	Calls    []Call              `json:"calls"`
	Asserted map[string][]string `json:"asserted"` // queue -> resources whose fair share the spec asserts
	Expects  int                 `json:"expects"`
	Failures []string            `json:"failures,omitempty"`
	Panicked string              `json:"panicked,omitempty"`
}

var running *Capture

func snapshot(q queues) (map[string]*rs.QueueAttributes, map[string]int64) {
	out := map[string]*rs.QueueAttributes{}
	created := map[string]int64{}
	for k, v := range q {
		out[string(k)] = v.Clone()
		if !v.CreationTimestamp.IsZero() {
			created[string(k)] = v.CreationTimestamp.UnixNano()
		} else {
			created[string(k)] = 0
		}
	}
	return out, created
}

// RecordCall notes a division call's inputs; call the returned function with its result.
func RecordCall(fn string, total, k float64, res rs.ResourceName, q queues) func(remaining float64) {
	if running == nil {
		return func(float64) {}
	}
	before, created := snapshot(q)
	c := Call{Fn: fn, Totals: map[string]float64{string(res): total}, K: k, Before: before, Created: created}
	return func(remaining float64) {
		c.After, _ = snapshot(q)
		c.Remaining = remaining
		running.Calls = append(running.Calls, c)
	}
}

// RecordCallAll notes a call dividing every resource (SetResourcesShare).
func RecordCallAll(fn string, totals rs.ResourceQuantities, k float64, q queues) func() {
	if running == nil {
		return func() {}
	}
	before, created := snapshot(q)
	c := Call{Fn: fn, Totals: map[string]float64{}, K: k, Before: before, Created: created}
	for _, r := range rs.AllResources {
		c.Totals[string(r)] = totals[r]
	}
	return func() {
		c.After, _ = snapshot(q)
		running.Calls = append(running.Calls, c)
	}
}

// Asserted notes that the spec asserts queue id's fair share of a resource (the generated code
// wraps `queues[id].<RES>.FairShare` inside Expect with this).
func Asserted(id common_info.QueueID, res string, v float64) float64 {
	if running != nil {
		key := string(id)
		for _, r := range running.Asserted[key] {
			if r == res {
				return v
			}
		}
		running.Asserted[key] = append(running.Asserted[key], res)
	}
	return v
}

// Run replays the registered specs, checks that each passes as under Ginkgo, and writes the
// captures to $QUOTIENT_KAI_OUT/.division/<name>.json.
func Run(t *testing.T, kaiFile string, register func()) {
	root := os.Getenv("QUOTIENT_KAI_OUT")
	if root == "" {
		t.Skip("QUOTIENT_KAI_OUT is not set")
	}
	all := collect(register)
	var captures []Capture
	for i, s := range all {
		c := &Capture{Index: i, Path: s.path, Asserted: map[string][]string{}}
		running = c
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.Panicked = fmt.Sprint(r)
				}
			}()
			for _, b := range befores(s.at) {
				b()
			}
			s.run()
		}()
		running = nil
		if c.Panicked != "" || len(c.Failures) > 0 {
			t.Errorf("spec %d %q does not pass when replayed: %s %v", i, strings.Join(s.path, " / "), c.Panicked, c.Failures)
		}
		captures = append(captures, *c)
	}
	dir := filepath.Join(root, ".division")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(map[string]any{"kaiFile": kaiFile, "specs": captures}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(kaiFile), ".go")
	if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d specs replayed", kaiFile, len(all))
}
