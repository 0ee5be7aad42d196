// Command divisioncases turns the captures of KAI's resource-division specs (written by
// convert/division inside KAI's test package) into scenario folders: for every spec that divides
// one resource among flat queues from a state a cluster can produce, a node holding the total,
// top-level queues with the spec's deserved/limit/weight/priority, pending pods making up each
// queue's request, and the fair shares KAI computed as kai-expected.json.
//
// Usage (in the go.work of translate.sh): divisioncases -staging DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	enginev2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/conf_util"
	rs "github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/plugins/proportion/resource_share"

	"quotient.dev/kai-translate/convert"
	"quotient.dev/kai-translate/convert/division"
)

type call = division.Call

func main() {
	staging := flag.String("staging", "", "staging folder (holds .division/*.json)")
	flag.Parse()
	actions.InitDefaultActions() // KAI's configuration resolver checks actions against the registry
	if err := run(*staging); err != nil {
		fmt.Fprintln(os.Stderr, "divisioncases:", err)
		os.Exit(1)
	}
}

func run(staging string) error {
	files, err := filepath.Glob(filepath.Join(staging, ".division", "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no captures in %s/.division", staging)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var in struct {
			KaiFile string             `json:"kaiFile"`
			Specs   []division.Capture `json:"specs"`
		}
		if err := json.Unmarshal(data, &in); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		stem := convert.FileStem(in.KaiFile)
		var records []convert.PartRecord
		for _, c := range in.Specs {
			name := strings.Join(c.Path, " / ")
			pr := convert.PartRecord{Stem: stem, KaiFile: in.KaiFile, TestFunc: "TestProportion (Ginkgo)",
				Origin: "Ginkgo spec", Index: c.Index, FileIndex: c.Index, Name: name, Mode: "division", Cycles: 1}
			if c.Panicked != "" || len(c.Failures) > 0 {
				pr.Skipped, pr.SkipKind, pr.SkipReason = true, "replay failure", "the spec does not pass outside Ginkgo"
				records = append(records, pr)
				continue
			}
			files, err := convertSpec(in.KaiFile, c)
			if err != nil {
				pr.Skipped = true
				if se, ok := err.(*convert.SkipError); ok {
					pr.SkipKind, pr.SkipReason = se.Kind, se.Reason
				} else {
					return fmt.Errorf("spec %d: %w", c.Index, err)
				}
				records = append(records, pr)
				continue
			}
			folder := filepath.Join(stem, fmt.Sprintf("%03d-%s", c.Index, convert.Slug(c.Path[len(c.Path)-1])))
			pr.Folder = filepath.ToSlash(folder)
			dir := filepath.Join(staging, folder)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
					return err
				}
			}
			records = append(records, pr)
		}
		if err := os.MkdirAll(filepath.Join(staging, ".parts"), 0o755); err != nil {
			return err
		}
		data, _ = json.MarshalIndent(records, "", "  ")
		if err := os.WriteFile(filepath.Join(staging, ".parts", stem+".json"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func skip(kind, format string, args ...any) error {
	return &convert.SkipError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

func share(q *rs.QueueAttributes, res rs.ResourceName) rs.ResourceShare {
	return *q.ResourceShare(res)
}

func resKey(res rs.ResourceName) string {
	switch res {
	case rs.GpuResource:
		return "gpu"
	case rs.CpuResource:
		return "cpu"
	default:
		return "memory"
	}
}

func assertedKey(res string) string {
	switch strings.ToUpper(res) {
	case "GPU":
		return "gpu"
	case "CPU":
		return "cpu"
	default:
		return "memory"
	}
}

func isWhole(v float64) bool { return v == math.Trunc(v) }

// quota converts a share in the division's units (GPUs, millicores, bytes) to the Queue spec's
// (GPUs, millicores, MB); false if MB cannot carry it exactly.
func quota(v float64, res rs.ResourceName) (float64, bool) {
	if v == -1 || res != rs.MemoryResource {
		return v, true
	}
	mb := v / 1e6
	if math.Max(-1, mb*1e6) != v {
		return 0, false
	}
	return mb, true
}

var allResources = []rs.ResourceName{rs.GpuResource, rs.CpuResource, rs.MemoryResource}

func convertSpec(kaiFile string, capture division.Capture) ([]convert.File, error) {
	index := capture.Index
	if len(capture.Calls) == 0 {
		return nil, skip("not a division", "the spec does not divide resources (it tests a helper)")
	}
	if len(capture.Calls) > 1 {
		return nil, skip("several divisions", "the spec divides %d times", len(capture.Calls))
	}
	c := capture.Calls[0]
	// The resources divided, each with the amount given to the division.
	var resources []rs.ResourceName
	for _, r := range allResources {
		if _, ok := c.Totals[string(r)]; ok {
			resources = append(resources, r)
		}
	}
	divided := map[rs.ResourceName]bool{}
	for _, r := range resources {
		divided[r] = true
	}
	// The queues whose fair shares the spec asserts (SetResourcesShare specs compare every
	// resource of every queue they list: all of them).
	asserted := map[string]bool{}
	if c.Fn == "SetResourcesShare" {
		for id := range c.Before {
			asserted[id] = true
		}
	}
	for id, list := range capture.Asserted {
		for _, r := range list {
			if !divided[rs.ResourceName(resKeyToName(assertedKey(r)))] {
				return nil, skip("other resource", "the spec asserts %s shares of a resource it does not divide", r)
			}
			asserted[id] = true
		}
	}
	if len(asserted) == 0 {
		return nil, skip("remainder only", "the spec asserts only the amount left undivided, which the report does not show")
	}
	if c.K != 0 {
		return nil, skip("usage", "kValue %v weighs historical usage (a usage database)", c.K)
	}
	ids := make([]string, 0, len(c.Before))
	for id := range c.Before {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	uids := map[string]bool{}
	for _, id := range ids {
		q := c.Before[id]
		if q.ParentQueue != "" || len(q.ChildQueues) > 0 {
			return nil, skip("hierarchy", "queue %s has a parent or children", id)
		}
		if q.UID == "" || uids[string(q.UID)] {
			return nil, skip("queue identity", "queue keyed %s has UID %q", id, q.UID)
		}
		uids[string(q.UID)] = true
	}
	// The division tells queues apart (and breaks ties) by UID; a Queue object's is its name.
	// Order the queues by UID.
	sort.Slice(ids, func(i, j int) bool { return c.Before[ids[i]].UID < c.Before[ids[j]].UID })

	// The cluster's total of each resource, and the state the call starts from.
	totals := map[rs.ResourceName]float64{}
	for _, r := range resources {
		total := c.Totals[string(r)]
		for _, id := range ids {
			sh := share(c.Before[id], r)
			if c.Fn == "divideOverQuotaResource" {
				// The over-quota step from a state where every queue already holds what the
				// deserved step would give it, out of the given remainder plus those shares.
				total += sh.FairShare
			} else if sh.FairShare != 0 {
				return nil, skip("hand-set state", "queue %s starts with a %s fair share of %v (the division adds to it)", id, r, sh.FairShare)
			}
		}
		if c.Fn == "divideOverQuotaResource" {
			for _, id := range ids {
				sh := share(c.Before[id], r)
				deserved := sh.Deserved
				if deserved == -1 {
					deserved = total
				}
				if want := math.Min(deserved, sh.GetRequestableShare()); want != sh.FairShare {
					return nil, skip("hand-set state", "queue %s starts with fair share %v, not the %v the deserved step gives (the spec tests the over-quota step from a hand-set state)", id, sh.FairShare, want)
				}
			}
			if c.Totals[string(r)] <= 0 {
				return nil, skip("hand-set state", "the over-quota step alone gets %v (setResourceShare would skip it)", c.Totals[string(r)])
			}
		}
		if total < 0 {
			return nil, skip("negative total", "the total of %s is %v", r, total)
		}
		if !isWhole(total) {
			if r == rs.GpuResource {
				return nil, skip("fractional capacity", "the total of %v GPUs is not a whole number of GPUs a node can have", total)
			}
			return nil, skip("fractional capacity", "the total of %v %s is not whole", total, unitText(r))
		}
		totals[r] = total
	}

	// Queue names keep the order of the test's UIDs (ties in the division go by UID).
	names := map[string]string{}
	plain := true
	for _, id := range ids {
		u := string(c.Before[id].UID)
		if u[0] < 'a' || u[0] > 'z' || strings.ContainsAny(u, " _/") {
			plain = false
		}
	}
	for _, id := range ids {
		u := string(c.Before[id].UID)
		if plain {
			names[id] = u
		} else {
			names[id] = "queue-" + u
		}
	}
	// Creation times keep the test's order (equal stays equal).
	var stamps []int64
	for _, id := range ids {
		stamps = append(stamps, c.Created[id])
	}
	uniq := append([]int64(nil), stamps...)
	sort.Slice(uniq, func(i, j int) bool { return uniq[i] < uniq[j] })
	rank := map[int64]int{}
	for _, t := range uniq {
		if _, ok := rank[t]; !ok {
			rank[t] = len(rank)
		}
	}

	var objects []any
	node := &v1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "node-0", UID: "node-0"},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{v1.ResourcePods: resource.MustParse("110")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
	var capacity []string
	for _, r := range resources {
		t := totals[r]
		switch r {
		case rs.GpuResource:
			node.Status.Allocatable["nvidia.com/gpu"] = *resource.NewQuantity(int64(t), resource.DecimalSI)
		case rs.CpuResource:
			node.Status.Allocatable[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(t), resource.DecimalSI)
		default:
			node.Status.Allocatable[v1.ResourceMemory] = *resource.NewQuantity(int64(t), resource.DecimalSI)
		}
		capacity = append(capacity, num(t)+" "+unitText(r))
	}
	node.Status.Capacity = node.Status.Allocatable.DeepCopy()
	objects = append(objects, node)

	var pgs, pods []any
	var queueLines, expectLines []string
	expected := []map[string]any{}
	for i, id := range ids {
		q := c.Before[id]
		inert := enginev2.QueueResource{Quota: 0, Limit: -1, OverQuotaWeight: 0}
		qres := &enginev2.QueueResources{GPU: inert, CPU: inert, Memory: inert}
		var parts []string
		var main podRequest
		var extra []podRequest
		for _, r := range resources {
			sh := share(q, r)
			deserved, ok1 := quota(sh.Deserved, r)
			limit, ok2 := quota(sh.MaxAllowed, r)
			if !ok1 || !ok2 {
				return nil, skip("units", "queue %s's memory quota or limit is not a whole number of MB", id)
			}
			mine := enginev2.QueueResource{Quota: deserved, Limit: limit, OverQuotaWeight: sh.OverQuotaWeight}
			switch r {
			case rs.GpuResource:
				qres.GPU = mine
			case rs.CpuResource:
				qres.CPU = mine
			default:
				qres.Memory = mine
			}
			parts = append(parts, fmt.Sprintf("%s: deserved %s, limit %s, over-quota weight %s, request %s", resKey(r),
				fmtShare(sh.Deserved), fmtShare(sh.MaxAllowed), num(sh.OverQuotaWeight), num(sh.Request)))
			request := sh.Request
			if request < 0 {
				return nil, skip("units", "queue %s requests %v", id, request)
			}
			switch r {
			case rs.GpuResource:
				whole := math.Floor(request)
				frac := request - whole
				main.gpus = int64(whole)
				if frac > 0 {
					text := strconv.FormatFloat(frac, 'f', -1, 64)
					if v, err := strconv.ParseFloat(text, 64); err != nil || v+whole != request || len(text) > 6 {
						return nil, skip("units", "queue %s requests %v GPUs (fraction %v)", id, request, frac)
					}
					extra = append(extra, podRequest{fraction: frac})
				}
			case rs.CpuResource:
				if !isWhole(request) {
					return nil, skip("units", "queue %s requests %v millicores", id, request)
				}
				main.milliCPU = int64(request)
			default:
				if !isWhole(request) {
					return nil, skip("units", "queue %s requests %v bytes", id, request)
				}
				main.memory = int64(request)
			}
		}
		priority := q.Priority
		name := names[id]
		objects = append(objects, &enginev2.Queue{
			TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.run.ai/v2", Kind: "Queue"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name),
				CreationTimestamp: metav1.Time{Time: convert.Now.Add(time.Duration(rank[stamps[i]]) * time.Minute)}},
			Spec: enginev2.QueueSpec{Priority: &priority, Resources: qres},
		})
		queueLines = append(queueLines, fmt.Sprintf("- queue `%s` (the spec's queue %q, priority %d): %s", name, id, q.Priority, strings.Join(parts, "; ")))

		var podReqs []podRequest
		if !main.empty() {
			podReqs = append(podReqs, main)
		}
		podReqs = append(podReqs, extra...)
		for j, r := range podReqs {
			pgName := fmt.Sprintf("%s-job%d", name, j)
			created := convert.Now.Add(-time.Duration(100-10*i-j) * time.Minute)
			min := int32(1)
			pgs = append(pgs, &enginev2alpha2.PodGroup{
				TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.run.ai/v2alpha2", Kind: "PodGroup"},
				ObjectMeta: metav1.ObjectMeta{Name: pgName, Namespace: "default", UID: types.UID(pgName),
					CreationTimestamp: metav1.Time{Time: created}},
				Spec: enginev2alpha2.PodGroupSpec{Queue: name, MinMember: &min},
			})
			pods = append(pods, r.pod(pgName+"-0", pgName, name, created))
		}
		e := map[string]any{"name": name}
		if asserted[id] {
			fs := map[string]any{}
			var vals []string
			for _, r := range resources {
				v := share(c.After[id], r).FairShare
				fs[resKey(r)] = v
				vals = append(vals, fmt.Sprintf("%s %s", num(v), unitText(r)))
			}
			e["fairShare"] = fs
			expectLines = append(expectLines, fmt.Sprintf("- `%s`: fair share %s", name, strings.Join(vals, ", ")))
		}
		expected = append(expected, e)
	}
	objects = append(objects, pgs...)
	objects = append(objects, pods...)
	cluster, err := convert.RenderObjects(objects)
	if err != nil {
		return nil, err
	}
	sort.Slice(expected, func(i, j int) bool { return expected[i]["name"].(string) < expected[j]["name"].(string) })
	var eb strings.Builder
	eb.WriteString("{\n  \"queues\": [")
	for i, e := range expected {
		if i > 0 {
			eb.WriteString(",")
		}
		data, _ := json.Marshal(e)
		eb.WriteString("\n    ")
		eb.Write(data)
	}
	eb.WriteString("\n  ]\n}\n")

	resolved, err := conf_util.ResolveConfigurationFromFile("")
	if err != nil {
		return nil, err
	}
	config, err := convert.ConfigYAML(resolved, false, []string{"stalegangeviction"}, 0, nil,
		map[string]map[string]string{"proportion": {"kValue": "0"}})
	if err != nil {
		return nil, err
	}
	args := []string{"--actions", "stalegangeviction", "--scheduler-name", "kai-scheduler", "--now", convert.NowText(),
		"-o", "json", "--config", "$SCENARIO/config.yaml", "$SCENARIO/cluster.yaml"}

	var rb strings.Builder
	fmt.Fprintf(&rb, "# %s\n\n", capture.Path[len(capture.Path)-1])
	rb.WriteString("A resource-division test case of KAI Scheduler v0.17.0, translated into Kubernetes objects by\n")
	rb.WriteString("test/kai-translate (generated; rerun `test/kai-translate/translate.sh` rather than editing).\n\n")
	fmt.Fprintf(&rb, "- KAI file: `%s`\n", kaiFile)
	fmt.Fprintf(&rb, "- Test function: `TestProportion` (Ginkgo), spec %d (specs numbered in path order): %q\n", index, strings.Join(capture.Path, " / "))
	var given []string
	for _, r := range resources {
		given = append(given, num(c.Totals[string(r)])+" "+unitText(r))
	}
	fmt.Fprintf(&rb, "- What KAI's spec does: `%s` of %s among %d queue(s)", c.Fn, strings.Join(given, ", "), len(ids))
	if c.Fn == "divideOverQuotaResource" {
		fmt.Fprintf(&rb, ", starting from shares already at what the deserved step gives (so the cluster holds %s in all)", strings.Join(capacity, ", "))
	}
	rb.WriteString(".\n\n## The cluster\n\n")
	fmt.Fprintf(&rb, "- node `node-0` with %s (the amount divided) and nothing else\n", strings.Join(capacity, ", "))
	for _, l := range queueLines {
		rb.WriteString(l + "\n")
	}
	rb.WriteString("- each queue's request is made of pending pods (one pod group each); the queues are top-level\n")
	rb.WriteString("  (no parent), so the cluster's total is divided among them as the spec divides it\n\n")
	rb.WriteString("## What the case checks\n\n")
	rb.WriteString("The queues' fair shares, as KAI computes them when the session opens (the report's `fairShare`;\n")
	rb.WriteString("`--actions stalegangeviction` schedules nothing):\n\n")
	for _, l := range expectLines {
		rb.WriteString(l + "\n")
	}
	rb.WriteString("\nThe amount left undivided, which the spec may also check, is not in the report. Resources the spec\n")
	rb.WriteString("does not divide are inert (no capacity, no requests, quota 0).\n")
	rb.WriteString("\n## Translation notes\n\n- `config.yaml`: KAI's default plugins, with the proportion plugin's `kValue` at 0 as in the spec\n" +
		"  (KAI's default is 1; with no usage history it gives the same division).\n")
	rb.WriteString("- Units: GPUs; CPU in millicores (as in Queue quotas); memory in bytes, Queue quotas in MB (10^6 bytes).\n")
	if len(capture.Asserted) == 0 && c.Fn == "SetResourcesShare" {
		rb.WriteString("- The spec compares every resource of the queues it lists; here every queue is listed.\n")
	}

	return []convert.File{
		{Name: "README.md", Data: []byte(rb.String())},
		{Name: "args.txt", Data: []byte(strings.Join(args, "\n") + "\n")},
		{Name: "cluster.yaml", Data: cluster},
		{Name: "config.yaml", Data: []byte(config)},
		{Name: "kai-expected.json", Data: []byte(eb.String())},
	}, nil
}

func resKeyToName(key string) string {
	switch key {
	case "gpu":
		return string(rs.GpuResource)
	case "cpu":
		return string(rs.CpuResource)
	}
	return string(rs.MemoryResource)
}

type podRequest struct {
	gpus     int64
	fraction float64
	milliCPU int64
	memory   int64
}

func (r podRequest) empty() bool {
	return r.gpus == 0 && r.fraction == 0 && r.milliCPU == 0 && r.memory == 0
}

func (r podRequest) pod(name, pg, queue string, created time.Time) *v1.Pod {
	req := v1.ResourceList{}
	lim := v1.ResourceList{}
	ann := map[string]string{"pod-group-name": pg}
	if r.gpus > 0 {
		q := *resource.NewQuantity(r.gpus, resource.DecimalSI)
		req["nvidia.com/gpu"] = q
		lim["nvidia.com/gpu"] = q
	}
	if r.fraction > 0 {
		ann["gpu-fraction"] = strconv.FormatFloat(r.fraction, 'f', -1, 64)
	}
	if r.milliCPU > 0 {
		req[v1.ResourceCPU] = *resource.NewMilliQuantity(r.milliCPU, resource.DecimalSI)
	}
	if r.memory > 0 {
		req[v1.ResourceMemory] = *resource.NewQuantity(r.memory, resource.DecimalSI)
	}
	container := v1.Container{Name: "main", Image: "registry.example.com/kai-test:1",
		Resources: v1.ResourceRequirements{Requests: req}}
	if len(lim) > 0 {
		container.Resources.Limits = lim
	}
	return &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name),
			CreationTimestamp: metav1.Time{Time: created},
			Labels:            map[string]string{"kai.scheduler/queue": queue},
			Annotations:       ann},
		Spec:   v1.PodSpec{SchedulerName: "kai-scheduler", Containers: []v1.Container{container}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func fmtShare(v float64) string {
	if v == -1 {
		return "unlimited"
	}
	return num(v)
}

func unitText(res rs.ResourceName) string {
	switch res {
	case rs.GpuResource:
		return "GPUs"
	case rs.CpuResource:
		return "millicores of CPU"
	default:
		return "bytes of memory"
	}
}
