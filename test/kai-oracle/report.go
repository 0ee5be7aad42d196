package main

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"

	enginev2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	commonconstants "github.com/kai-scheduler/KAI-scheduler/pkg/common/constants"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
)

// The report: exactly the fields of `quotient schedule -o json`, in its order
// (docs/schedule-command.md, src/cli/report_document.cc).
type report struct {
	Cycles    []cycleReport    `json:"cycles"`
	Pods      []podReport      `json:"pods"`
	PodGroups []podGroupReport `json:"podGroups"`
	Queues    []queueReport    `json:"queues"`
}

type cycleReport struct {
	Index     int        `json:"index"`
	Decisions []decision `json:"decisions"`
}

type podReport struct {
	Pod       string   `json:"pod"`
	PodGroup  string   `json:"podGroup"`
	Queue     string   `json:"queue"`
	Status    string   `json:"status"`
	Node      string   `json:"node"`
	GpuGroups []string `json:"gpuGroups"`
	Reason    string   `json:"reason"`
}

type podGroupReport struct {
	PodGroup  string   `json:"podGroup"`
	Queue     string   `json:"queue"`
	MinMember int32    `json:"minMember"`
	Status    string   `json:"status"`
	Reasons   []string `json:"reasons"`
}

type resourceBounds struct {
	GPU    *float64 `json:"gpu"`
	CPU    *float64 `json:"cpu"`
	Memory *float64 `json:"memory"`
}

type resourceVector struct {
	GPU    float64 `json:"gpu"`
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
}

type queueReport struct {
	Name      string         `json:"name"`
	Parent    string         `json:"parent"`
	Priority  int            `json:"priority"`
	Deserved  resourceBounds `json:"deserved"`
	Limit     resourceBounds `json:"limit"`
	FairShare resourceVector `json:"fairShare"`
	Allocated resourceVector `json:"allocated"`
	Requested resourceVector `json:"requested"`
}

// marshalReport writes the report as quotient does: two-space indent, no HTML escaping.
func marshalReport(r *report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// KAI computes shares in float64; values are rounded to strip float noise (0.30000000000000004)
// well below the precision quotient reports (milli-GPUs, millicores, bytes).
func roundGPU(v float64) float64   { return math.Round(v*1e9) / 1e9 }
func roundOther(v float64) float64 { return math.Round(v*1e3) / 1e3 }

func vectorOf(v [3]float64) resourceVector {
	return resourceVector{GPU: roundGPU(v[0]), CPU: roundOther(v[1]), Memory: roundOther(v[2])}
}

func boundsOf(v [3]float64) resourceBounds {
	bound := func(x float64, round func(float64) float64) *float64 {
		if x == commonconstants.UnlimitedResourceQuantity {
			return nil
		}
		r := round(x)
		return &r
	}
	return resourceBounds{GPU: bound(v[0], roundGPU), CPU: bound(v[1], roundOther), Memory: bound(v[2], roundOther)}
}

// runState is what the report needs from the whole run besides the last cycle.
type runState struct {
	world         *objects // as the last cycle saw it
	schedulerName string
	queueLabelKey string
	boundByRun    map[string]bool // pods bound by this run and not evicted since
}

// buildReport assembles the report after the last cycle.
func buildReport(cycles []cycleReport, last *cycleResult, st *runState) *report {
	r := &report{Cycles: cycles}
	groups := map[string]*enginev2alpha2.PodGroup{}
	for _, pg := range st.world.PodGroups {
		groups[podGroupKey(pg)] = pg
	}
	lastDecision := map[string]*decision{}
	for i := range last.decisions {
		lastDecision[last.decisions[i].Pod] = &last.decisions[i]
	}
	podsOfGroup := map[string][]*podReport{}
	statusOf := map[string]string{}
	var ours []*corev1.Pod
	for _, pod := range st.world.Pods {
		if pod.Spec.SchedulerName == st.schedulerName {
			ours = append(ours, pod)
		}
	}
	sort.Slice(ours, func(i, j int) bool { return podKey(ours[i]) < podKey(ours[j]) })
	for _, pod := range ours {
		p := reportPod(pod, groups, last, lastDecision[podKey(pod)], st)
		r.Pods = append(r.Pods, p)
		statusOf[p.Pod] = p.Status
	}
	for i := range r.Pods {
		podsOfGroup[r.Pods[i].PodGroup] = append(podsOfGroup[r.Pods[i].PodGroup], &r.Pods[i])
	}
	// A PodGroup that pods name but that does not exist is listed too (as quotient lists it):
	// KAI never sees its pods; it gets the implicit group's queue and a minimum of one.
	for _, pod := range ours {
		name := pod.Annotations[commonconstants.PodGroupAnnotationForPod]
		if _, ok := groups[pod.Namespace+"/"+name]; !ok {
			stub := implicitPodGroup(pod, name, st.queueLabelKey)
			stub.Spec.MinMember = nil
			groups[podGroupKey(stub)] = stub
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.PodGroups = append(r.PodGroups, reportGroup(groups[k], last.jobs[k], podsOfGroup[k], statusOf, last))
	}
	r.Queues = reportQueues(st.world.Queues, last.queues)
	if r.Pods == nil {
		r.Pods = []podReport{}
	}
	if r.PodGroups == nil {
		r.PodGroups = []podGroupReport{}
	}
	return r
}

// reportPod maps a pod to its status in the report. KAI's task statuses map as follows: a bind,
// pipeline or eviction decided in the last cycle gives Bound, Pipelined or Releasing; otherwise
// Running, Bound and Binding (on a node before the cycle) and Allocated are Running (Bound if
// this run bound it in an earlier cycle); Pipelined, Pending and Gated are themselves;
// Releasing and StuckInReleasing are Releasing; Unknown is Running on a node, else Pending.
// Finished pods, which KAI's cache never lists, are Succeeded or Failed from their phase.
func reportPod(pod *corev1.Pod, groups map[string]*enginev2alpha2.PodGroup, last *cycleResult,
	d *decision, st *runState) podReport {
	key := podKey(pod)
	groupName := pod.Annotations[commonconstants.PodGroupAnnotationForPod]
	p := podReport{Pod: key, PodGroup: pod.Namespace + "/" + groupName, GpuGroups: []string{}}
	if pg, ok := groups[p.PodGroup]; ok {
		p.Queue = pg.Spec.Queue
	} else {
		p.Queue = implicitPodGroup(pod, groupName, st.queueLabelKey).Spec.Queue
	}
	task, inSession := last.tasks[key]
	switch {
	case pod.Status.Phase == corev1.PodSucceeded:
		p.Status = "Succeeded"
	case pod.Status.Phase == corev1.PodFailed:
		p.Status = "Failed"
	case inSession:
		p.Status = statusName(task.status, task.node != "")
		p.Node = task.node
		p.GpuGroups = append(p.GpuGroups, task.gpuGroups...)
	default:
		// Not in KAI's session (its PodGroup is missing or KAI filtered it out): as on the API.
		p.Node = pod.Spec.NodeName
		switch {
		case pod.DeletionTimestamp != nil && p.Node != "":
			p.Status = "Releasing"
		case p.Node != "":
			p.Status = "Running"
		default:
			p.Status = "Pending"
		}
	}
	if p.Status == "Running" && st.boundByRun[key] {
		p.Status = "Bound"
	}
	if d != nil {
		p.Node = d.Node
		switch d.Kind {
		case kindEvict:
			p.Status = "Releasing"
		case kindBind:
			p.Status = "Bound"
			p.GpuGroups = append([]string{}, *d.GpuGroups...)
		case kindPipeline:
			p.Status = "Pipelined"
		}
	}
	if p.Status == "Pending" {
		p.Node = ""
		p.Reason = pendingReason(pod, p.PodGroup, inSession, groups, last)
	}
	return p
}

func statusName(s pod_status.PodStatus, hasNode bool) string {
	switch s {
	case pod_status.Running, pod_status.Bound, pod_status.Binding, pod_status.Allocated:
		return "Running"
	case pod_status.Pipelined:
		return "Pipelined"
	case pod_status.Releasing, pod_status.StuckInReleasing:
		return "Releasing"
	case pod_status.Gated:
		return "Gated"
	case pod_status.Succeeded:
		return "Succeeded"
	case pod_status.Failed:
		return "Failed"
	case pod_status.Pending:
		return "Pending"
	}
	if hasNode {
		return "Running"
	}
	return "Pending"
}

// pendingReason is the message KAI's status updater recorded for a pending pod: its own
// Unschedulable event, else its PodGroup's NotReady or Unschedulable event.
func pendingReason(pod *corev1.Pod, group string, inSession bool, groups map[string]*enginev2alpha2.PodGroup,
	last *cycleResult) string {
	key := podKey(pod)
	if m, ok := last.events.podUnschedulable[key]; ok {
		return m
	}
	if m, ok := last.events.groupNotReady[group]; ok {
		return m
	}
	if m, ok := last.events.groupUnschedulable[group]; ok {
		return m
	}
	if _, ok := groups[group]; !ok {
		return "not scheduled by KAI: PodGroup " + group + " (named by the pod-group-name annotation) does not exist"
	}
	if !inSession {
		return "not scheduled by KAI: its PodGroup " + group + " is not in KAI's session (filtered out by KAI's cache)"
	}
	return "KAI recorded no reason for this pending pod"
}

// reportGroup applies the contract's rule to the pods' reported statuses: Running when every
// leaf subgroup has its minimum Running or Bound, Pipelined counting Pipelined pods too,
// Succeeded/Failed when all pods finished, else Pending with the distinct reasons of its
// pending pods. Subgroups and minimums are KAI's (its job's pod sets).
func reportGroup(pg *enginev2alpha2.PodGroup, job *jobState, pods []*podReport, statusOf map[string]string,
	last *cycleResult) podGroupReport {
	g := podGroupReport{PodGroup: podGroupKey(pg), Queue: pg.Spec.Queue, Reasons: []string{}}
	sets := []podSetState{}
	if job != nil {
		g.MinMember = job.minMember
		sets = job.podSets
	} else {
		g.MinMember = specMinMember(pg)
	}
	allActive, allPlaced := job != nil, job != nil
	for _, set := range sets {
		active, placed := int32(0), int32(0)
		for _, pod := range set.pods {
			switch statusOf[pod] {
			case "Running", "Bound":
				active++
				placed++
			case "Pipelined":
				placed++
			}
		}
		allActive = allActive && active >= set.minAvailable
		allPlaced = allPlaced && placed >= set.minAvailable
	}
	anyAlive, anyFailed := false, false
	for _, p := range pods {
		anyAlive = anyAlive || (p.Status != "Succeeded" && p.Status != "Failed")
		anyFailed = anyFailed || p.Status == "Failed"
	}
	switch {
	case len(pods) > 0 && !anyAlive && anyFailed:
		g.Status = "Failed"
	case len(pods) > 0 && !anyAlive:
		g.Status = "Succeeded"
	case len(pods) > 0 && allActive:
		g.Status = "Running"
	case len(pods) > 0 && allPlaced:
		g.Status = "Pipelined"
	default:
		g.Status = "Pending"
	}
	if g.Status != "Pending" {
		return g
	}
	seen := map[string]bool{}
	for _, p := range pods {
		if p.Status == "Pending" && !seen[p.Reason] {
			seen[p.Reason] = true
			g.Reasons = append(g.Reasons, p.Reason)
		}
	}
	if len(pods) == 0 {
		if m, ok := last.events.groupUnschedulable[g.PodGroup]; ok {
			g.Reasons = append(g.Reasons, m)
		} else {
			g.Reasons = append(g.Reasons, "the pod group has no pods")
		}
	}
	return g
}

// specMinMember is the gang size a PodGroup asks for, for groups KAI left out of its session:
// the sum of its leaf subgroups' minimums, else its minMember (at least 1).
func specMinMember(pg *enginev2alpha2.PodGroup) int32 {
	parents := map[string]bool{}
	for _, sg := range pg.Spec.SubGroups {
		if sg.Parent != nil {
			parents[*sg.Parent] = true
		}
	}
	total := int32(0)
	for _, sg := range pg.Spec.SubGroups {
		if parents[sg.Name] {
			continue
		}
		if sg.MinMember != nil {
			total += max(*sg.MinMember, 1)
		} else {
			total++
		}
	}
	if len(pg.Spec.SubGroups) > 0 {
		return total
	}
	if pg.Spec.MinMember != nil {
		return max(*pg.Spec.MinMember, 1)
	}
	return 1
}

// reportQueues lists KAI's queues (sorted by name), and input queues KAI left out with zero
// shares and the quota and limit of their spec.
func reportQueues(input []*enginev2.Queue, kai map[string]*queueState) []queueReport {
	out := []queueReport{}
	for _, q := range input {
		if _, ok := kai[q.Name]; ok {
			continue
		}
		st := &queueState{name: q.Name, parent: q.Spec.ParentQueue, priority: commonconstants.DefaultQueuePriority}
		if q.Spec.Priority != nil {
			st.priority = *q.Spec.Priority
		}
		if r := q.Spec.Resources; r != nil {
			mem := func(v float64) float64 {
				if v < 0 {
					return v
				}
				return v * 1e6
			}
			st.deserved = [3]float64{r.GPU.Quota, r.CPU.Quota, mem(r.Memory.Quota)}
			st.limit = [3]float64{r.GPU.Limit, r.CPU.Limit, mem(r.Memory.Limit)}
		}
		kai = mergeQueue(kai, st)
	}
	names := make([]string, 0, len(kai))
	for name := range kai {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		q := kai[name]
		out = append(out, queueReport{
			Name: q.name, Parent: q.parent, Priority: q.priority,
			Deserved: boundsOf(q.deserved), Limit: boundsOf(q.limit),
			FairShare: vectorOf(q.fairShare), Allocated: vectorOf(q.allocated), Requested: vectorOf(q.requested),
		})
	}
	return out
}

func mergeQueue(m map[string]*queueState, q *queueState) map[string]*queueState {
	out := make(map[string]*queueState, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[q.name] = q
	return out
}
