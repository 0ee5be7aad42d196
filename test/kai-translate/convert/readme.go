package convert

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/node_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils"
)

func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func quota(v float64) string {
	if v == -1 {
		return "unlimited"
	}
	return num(v)
}

func caseReadme(src Source, index int, name string, topo test_utils.TestTopologyBasic, pods []podRecord,
	expected []ExpectedPod, asserted map[string]assertion, actions []string, cycles int, configNotes []string,
	nodeInfos map[string]*node_info.NodeInfo) string {
	var b strings.Builder
	title := name
	if title == "" {
		title = "(unnamed case)"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	b.WriteString("A test case of KAI Scheduler v0.17.0, translated into Kubernetes objects by test/kai-translate\n")
	b.WriteString("(generated; rerun `test/kai-translate/translate.sh` rather than editing).\n\n")
	fmt.Fprintf(&b, "- KAI file: `%s`\n", src.KaiFile)
	fmt.Fprintf(&b, "- Test function: `%s`, cases from `%s`, index %d\n", src.TestFunc, src.Origin, index)
	fmt.Fprintf(&b, "- Case name: %q\n", name)
	switch src.Mode {
	case Integration:
		fmt.Fprintf(&b, "- How KAI runs it: rounds of all five actions (%s), the world advanced between rounds\n"+
			"  (bound pods run, evicted pods come back pending, pipelined pods stay pending), matched after\n"+
			"  the rounds; here `--cycles %d`.\n", strings.Join(actions, ", "), cycles)
	default:
		fmt.Fprintf(&b, "- How KAI runs it: one session, the `%s` action once; here `--actions %s`.\n",
			strings.Join(actions, ","), strings.Join(actions, ","))
	}
	b.WriteString("\n## The cluster\n\n")
	nodeNames := make([]string, 0, len(topo.Nodes))
	for n := range topo.Nodes {
		nodeNames = append(nodeNames, n)
	}
	sort.Strings(nodeNames)
	for _, n := range nodeNames {
		meta := topo.Nodes[n]
		var parts []string
		if meta.MigStrategy != "" {
			parts = append(parts, fmt.Sprintf("MIG %s", meta.MigStrategy))
			var migs []string
			for r, c := range meta.MigInstances {
				migs = append(migs, fmt.Sprintf("%d x %s", c, r))
			}
			sort.Strings(migs)
			if len(migs) > 0 {
				parts = append(parts, strings.Join(migs, ", "))
			}
		}
		parts = append([]string{fmt.Sprintf("%d GPUs", meta.GPUs)}, parts...)
		if meta.GPUMemory > 0 {
			parts = append(parts, fmt.Sprintf("%d MiB per GPU", meta.GPUMemory))
		}
		if ni := nodeInfos[n]; ni != nil {
			cpu := ni.Node.Status.Allocatable.Cpu()
			mem := ni.Node.Status.Allocatable.Memory()
			parts = append(parts, fmt.Sprintf("cpu %s, memory %s allocatable", cpu.String(), mem.String()))
		}
		if len(meta.Labels) > 0 {
			var labels []string
			for k, v := range meta.Labels {
				labels = append(labels, k+"="+v)
			}
			sort.Strings(labels)
			parts = append(parts, "labels "+strings.Join(labels, ", "))
		}
		fmt.Fprintf(&b, "- node `%s`: %s\n", n, strings.Join(parts, "; "))
	}
	for _, d := range topo.Departments {
		fmt.Fprintf(&b, "- department (top-level queue) `%s`: GPU quota %s, limit %s, over-quota weight %s\n",
			d.Name, quota(d.DeservedGPUs), quota(limitOf(d.MaxAllowedGPUs)), num(d.DeservedGPUs))
	}
	for _, q := range topo.Queues {
		extra := ""
		if q.Priority != nil {
			extra += fmt.Sprintf(", priority %d", *q.Priority)
		}
		if q.DeservedCPUs != nil {
			extra += fmt.Sprintf(", CPU quota %s", quota(*q.DeservedCPUs))
		}
		if q.MaxAllowedCPUs != nil {
			extra += fmt.Sprintf(", CPU limit %s", quota(*q.MaxAllowedCPUs))
		}
		if q.DeservedMemory != nil {
			extra += fmt.Sprintf(", memory quota %s", quota(*q.DeservedMemory))
		}
		if q.MaxAllowedMemory != nil {
			extra += fmt.Sprintf(", memory limit %s", quota(*q.MaxAllowedMemory))
		}
		if q.ReclaimMinRuntime != nil {
			extra += fmt.Sprintf(", reclaim min runtime %s", q.ReclaimMinRuntime.Duration)
		}
		parent := ""
		if q.ParentQueue != "" {
			parent = fmt.Sprintf(" (under `%s`)", q.ParentQueue)
		}
		fmt.Fprintf(&b, "- queue `%s`%s: GPU quota %s, limit %s, over-quota weight %s%s\n", q.Name, parent,
			quota(q.DeservedGPUs), quota(limitOf(q.MaxAllowedGPUs)), num(q.GPUOverQuotaWeight), extra)
	}
	for _, j := range topo.Jobs {
		states := map[string]int{}
		var order []string
		for _, t := range j.Tasks {
			s := t.State.String()
			if t.NodeName != "" {
				s += " on " + t.NodeName
			}
			if states[s] == 0 {
				order = append(order, s)
			}
			states[s]++
		}
		var desc []string
		for _, s := range order {
			desc = append(desc, fmt.Sprintf("%d %s", states[s], s))
		}
		res := ""
		switch {
		case j.IsBestEffortJob:
			res = "no resource requests"
		case j.RequiredGpuMemory > 0:
			res = fmt.Sprintf("%d MiB of GPU memory", j.RequiredGpuMemory)
		default:
			res = fmt.Sprintf("%s GPU", num(j.RequiredGPUsPerTask))
		}
		if j.RequiredMultiFractionDevicesPerTask != nil {
			res += fmt.Sprintf(" on each of %d devices", *j.RequiredMultiFractionDevicesPerTask)
		}
		if j.RequiredCPUsPerTask != 0 {
			res += fmt.Sprintf(", %s CPU", num(j.RequiredCPUsPerTask))
		}
		if j.RequiredMemoryPerTask != 0 {
			res += fmt.Sprintf(", memory %s", num(j.RequiredMemoryPerTask))
		}
		extra := ""
		if j.Preemptibility != "" {
			extra += ", " + string(j.Preemptibility)
		}
		if j.RootSubGroupSet != nil {
			extra += ", with sub-groups"
		}
		if j.StaleDuration != nil {
			extra += fmt.Sprintf(", stale for %s", *j.StaleDuration)
		}
		fmt.Fprintf(&b, "- job `%s` (queue `%s`, priority %d%s): %d task(s) of %s per task: %s\n",
			j.Name, j.QueueName, j.Priority, extra, len(j.Tasks), res, strings.Join(desc, ", "))
	}

	b.WriteString("\n## What the case checks\n\n")
	b.WriteString("After the run KAI's test expects (kai-expected.json lists every pod; only these carry a status):\n\n")
	for _, e := range expected {
		a, ok := asserted[e.Pod]
		if !ok {
			continue
		}
		where := ""
		if e.Node != "" {
			where = " on `" + e.Node + "`"
		}
		note := ""
		if a.boundInRun {
			note = " (KAI: Running; bound during the run, so the report says Bound)"
		} else if a.status != pod_status.PodStatus(0) && ourStatus(a.status) != a.status.String() {
			note = fmt.Sprintf(" (KAI: %s)", a.status)
		}
		fmt.Fprintf(&b, "- `%s`: %s%s%s\n", e.Pod, e.Status, note, where)
	}
	if len(asserted) == 0 {
		b.WriteString("- (no pod status is asserted)\n")
	}
	var notCarried []string
	for _, r := range topo.JobExpectedResults {
		if len(r.GPUGroups) > 0 {
			notCarried = appendOnce(notCarried, "which GPU groups fractional pods share")
		}
		if r.ExpectedErrorMessage != "" {
			notCarried = appendOnce(notCarried, "the text of the job's fit error")
		}
	}
	for _, r := range topo.TaskExpectedResults {
		if len(r.GPUGroups) > 0 {
			notCarried = appendOnce(notCarried, "which GPU groups fractional pods share")
		}
	}
	if len(topo.ExpectedNodesResources) > 0 {
		notCarried = appendOnce(notCarried, "idle and releasing GPUs per node")
	}
	if topo.Mocks != nil && topo.Mocks.CacheRequirements != nil {
		notCarried = appendOnce(notCarried, "the most binds/evictions/pipelines the mocked cache allows")
	}
	if len(notCarried) > 0 {
		fmt.Fprintf(&b, "\nThe KAI test also checks what the report does not carry, so it is not compared here: %s.\n",
			strings.Join(notCarried, "; "))
	}
	b.WriteString("\n## Translation notes\n\n")
	for _, n := range configNotes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString("- Times are relative to `--now` " + NowText() + ": jobs were created minutes before it in the\n" +
		"  order KAI's builder gives them, queues minutes after it by index, running jobs started a minute before it.\n")
	if len(topo.Departments) == 1 && topo.Departments[0].Name == "default" && topo.Departments[0].DeservedGPUs == -1 {
		b.WriteString("- Queue `default` is the department BuildSession adds above every queue: GPU quota and limit -1\n" +
			"  and, since a department's over-quota weight is its GPU quota, weight -1.\n")
	}
	return b.String()
}

func limitOf(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
