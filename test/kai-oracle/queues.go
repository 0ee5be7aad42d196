package main

import (
	"math"
	"reflect"
	"unsafe"

	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/common_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/queue_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/framework"
	rs "github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/plugins/proportion/resource_share"
)

// proportionQueues is the proportion plugin's per-queue state in the session: deserved, fair
// share, limit, allocated and requested, per resource. The session exposes fair share, deserved
// and allocated through functions, but not what a queue requests, so the plugin's own map is
// read (read-only) through reflection: Session.plugins["proportion"].queues. Nil when the
// configuration has no proportion plugin.
func proportionQueues(ssn *framework.Session) map[common_info.QueueID]*rs.QueueAttributes {
	pluginsField := reflect.ValueOf(ssn).Elem().FieldByName("plugins")
	if !pluginsField.IsValid() {
		return nil
	}
	plugins, ok := readUnexported(pluginsField).(map[string]framework.Plugin)
	if !ok {
		return nil
	}
	plugin, ok := plugins["proportion"]
	if !ok {
		return nil
	}
	value := reflect.ValueOf(plugin)
	if value.Kind() != reflect.Pointer || value.Elem().Kind() != reflect.Struct {
		return nil
	}
	queuesField := value.Elem().FieldByName("queues")
	if !queuesField.IsValid() {
		return nil
	}
	queues, _ := readUnexported(queuesField).(map[common_info.QueueID]*rs.QueueAttributes)
	return queues
}

// fairShareSteps is how many steps of the grid --round-fair-shares rounds to make one unit, per
// resource in KAI's units: a billionth of a GPU, a millionth of a millicore, a byte. Each is far below what any quota,
// request or pod is expressed in, and far above float64's error on the sums KAI's resource
// division makes (2 can come out as 1.9999999999999998).
var fairShareSteps = map[rs.ResourceName]float64{
	rs.GpuResource: 1e9, rs.CpuResource: 1e6, rs.MemoryResource: 1,
}

// roundFairShares rounds every queue's fair share to that grid (dividing by a whole number of
// steps, so 2 comes out exactly 2), through the plugin's own
// AddResourceShare (which also drops its cached copy). Used to tell a decision KAI took on a
// tie that exact arithmetic has from one its rules make: kai_diff reruns a divergent case with
// it (test/kai-diff, "float-rounded-tie").
func roundFairShares(ssn *framework.Session) {
	for _, q := range proportionQueues(ssn) {
		for resource, steps := range fairShareSteps {
			share := q.ResourceShare(resource).FairShare
			if share <= 0 {
				continue
			}
			q.AddResourceShare(resource, roundedShare(share, steps)-share)
		}
	}
}

// roundedShare is share on a grid of 1/steps: rounded to the nearest step, divided by the
// whole number of steps (so that a multiple of the step comes out exact).
func roundedShare(share, steps float64) float64 {
	return math.Round(share*steps) / steps
}

func readUnexported(field reflect.Value) interface{} {
	return reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Interface()
}

func shareVector(q *rs.QueueAttributes, pick func(*rs.ResourceShare) float64) [3]float64 {
	return [3]float64{pick(&q.GPU), pick(&q.CPU), pick(&q.Memory)}
}

// openQueues reads the queues as the session opens: hierarchy, priority, quotas and fair shares.
// Without the proportion plugin, quotas come from KAI's queue info and shares are zero.
func openQueues(ssn *framework.Session) map[string]*queueState {
	out := map[string]*queueState{}
	attrs := proportionQueues(ssn)
	for id, q := range ssn.ClusterInfo.Queues {
		st := &queueState{name: string(id), parent: string(q.ParentQueue), priority: q.Priority}
		if a, ok := attrs[id]; ok {
			st.deserved = shareVector(a, func(r *rs.ResourceShare) float64 { return r.Deserved })
			st.limit = shareVector(a, func(r *rs.ResourceShare) float64 { return r.MaxAllowed })
			st.fairShare = shareVector(a, func(r *rs.ResourceShare) float64 { return r.FairShare })
		} else {
			st.deserved, st.limit = quotasOf(q)
		}
		out[string(id)] = st
	}
	return out
}

// closeQueues reads what each queue holds when the actions are done.
func closeQueues(ssn *framework.Session, queues map[string]*queueState) {
	attrs := proportionQueues(ssn)
	for id, a := range attrs {
		st, ok := queues[string(id)]
		if !ok {
			continue
		}
		st.allocated = shareVector(a, func(r *rs.ResourceShare) float64 { return r.Allocated })
		st.requested = shareVector(a, func(r *rs.ResourceShare) float64 { return r.Request })
	}
}

// quotasOf is a queue's quota and limit from KAI's queue info, in the report's units (memory
// there is in megabytes, 10^6 bytes).
func quotasOf(q *queue_info.QueueInfo) (deserved, limit [3]float64) {
	mem := func(v float64) float64 {
		if v < 0 {
			return v
		}
		return v * 1e6
	}
	r := q.Resources
	deserved = [3]float64{r.GPU.Quota, r.CPU.Quota, mem(r.Memory.Quota)}
	limit = [3]float64{r.GPU.Limit, r.CPU.Limit, mem(r.Memory.Limit)}
	return deserved, limit
}
