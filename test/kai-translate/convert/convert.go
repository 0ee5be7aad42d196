package convert

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	enginev2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/common_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/podgroup_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/podgroup_info/subgroup_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/resource_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils/jobs_fake"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils/nodes_fake"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils/tasks_fake"
)

// Now is the fixed clock of every translated case: `--now` in args.txt, and the reference for
// every timestamp in the objects (the KAI test builders use time.Now()).
var Now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// NowText is Now in RFC3339.
func NowText() string { return Now.Format(time.RFC3339) }

const (
	schedulerName = "kai-scheduler"
	// The namespace of jobs that name none (BuildPod leaves it empty; an API server would put
	// such objects in "default").
	defaultNamespace = "default"
	// KAI's stuck-in-releasing threshold is 2 minutes (scheduler flag default); a pod the test
	// marks StuckInReleasing gets a deletionTimestamp well beyond it.
	stuckDeletionAge = 10 * time.Minute
	// maxConsolidationPreemptees written for BuildSession's "no limit" (-1): Quotient's config
	// key takes 0..2^31-1, and a limit no case reaches behaves as none.
	unlimitedConsolidationPreemptees = 2147483647
)

// File is one file of a scenario folder.
type File struct {
	Name string
	Data []byte
}

// Result is a converted case.
type Result struct {
	Files  []File
	Cycles int
	Caveat string // why the objects may not reproduce the test's session exactly ("" = they do)
}

// ExpectedPod is one entry of kai-expected.json's pods list.
type ExpectedPod struct {
	Pod    string `json:"pod"`
	Status string `json:"status,omitempty"`
	Node   string `json:"node,omitempty"`
}

type podRecord struct {
	key       string // ns/name
	name      string
	job       string
	task      *pod_info.PodInfo
	meta      *tasks_fake.TestTaskBasic
	jobMeta   *jobs_fake.TestJobBasic
	taskIndex int
}

// Convert builds the scenario files of one case.
func Convert(t *testing.T, src Source, index int, name string, c caseValue) (*Result, error) {
	topo := c.topology
	if err := checkExpressible(&topo); err != nil {
		return nil, err
	}
	if src.Mode == Integration {
		for _, j := range topo.Jobs {
			for i, task := range j.Tasks {
				if task.State == pod_status.Releasing && !j.DeleteJobInTest {
					return nil, skip("round semantics", "task %s-%d starts Releasing in a job the test does not delete: KAI's round "+
						"harness brings such a pod back pending after the first round, while a terminating pod object stays "+
						"terminating for the whole run", j.Name, i)
				}
			}
		}
	}
	var notes []string
	caveat := ""
	maxGPUMemory := 0
	for _, n := range topo.Nodes {
		if n.GPUMemory > maxGPUMemory {
			maxGPUMemory = n.GPUMemory
		}
	}
	for _, j := range topo.Jobs {
		pendingMemory := false
		for _, task := range j.Tasks {
			if task.State == pod_status.Pending {
				pendingMemory = true
			}
		}
		if j.RequiredGpuMemory > 0 && pendingMemory && maxGPUMemory <= 100 && caveat == "" {
			caveat = "pending GPU-memory request on nodes of KAI's default 100 MiB GPU memory"
			notes = append(notes, "Caveat: job `"+j.Name+"` requests GPU memory while no node reports more than KAI's default of 100 MiB "+
				"per GPU. BuildSession then sets the cluster's minimum node GPU memory to 100 MiB, and the proportion plugin "+
				"counts the pending request as a GPU fraction of it; KAI's real cache sets no minimum in that case, so the "+
				"request counts no GPUs there. Objects cannot reproduce the test's session exactly here.")
		}
	}
	for _, j := range topo.Jobs {
		for i, task := range j.Tasks {
			if task.State == pod_status.Pending && task.NodeName != "" {
				notes = append(notes, fmt.Sprintf("The test gives pending task `%s-%d` a node name (`%s`); a pending pod object has no "+
					"`spec.nodeName` (one with it is bound), so the pod here has none.", j.Name, i, task.NodeName))
			}
		}
	}

	// What the test states before KAI's builders normalise it.
	type rawJob struct {
		preemptibility enginev2alpha2.Preemptibility
	}
	raw := map[*jobs_fake.TestJobBasic]rawJob{}
	for _, j := range topo.Jobs {
		raw[j] = rawJob{preemptibility: j.Preemptibility}
	}

	addDefaultDepartmentIfNeeded(&topo)

	vectorMap := resource_info.NewResourceVectorMap()
	jobInfos, tasksToNode, _ := jobs_fake.BuildJobsAndTasksMaps(topo.Jobs, vectorMap)
	nodeInfos := nodes_fake.BuildNodesInfoMap(topo.Nodes, tasksToNode, nil, vectorMap)

	// BuildJobsAndTasksMaps sorted topo.Jobs by priority (stable); creation times follow that
	// order.
	creation := jobCreationTimes(topo.Jobs)

	var objects []any
	priorityClasses := map[int32]string{}

	// Nodes, by name.
	nodeNames := make([]string, 0, len(nodeInfos))
	for n := range nodeInfos {
		nodeNames = append(nodeNames, n)
	}
	sort.Strings(nodeNames)
	for _, n := range nodeNames {
		objects = append(objects, nodeObject(nodeInfos[n].Node, topo.Nodes[n]))
	}

	// Queues: departments (parents) first, then queues, each in the test's order.
	for i, d := range topo.Departments {
		objects = append(objects, departmentObject(d, i))
	}
	for i, q := range topo.Queues {
		objects = append(objects, queueObject(q, i))
	}

	// Pods and pod groups.
	var pods []podRecord
	givenGroups := map[string]bool{}
	for _, j := range topo.Jobs {
		for _, task := range j.Tasks {
			for _, g := range task.GPUGroups {
				givenGroups[g] = true
			}
		}
	}
	var podGroups []any
	for jobIndex, j := range topo.Jobs {
		info := jobInfos[common_info.PodGroupID(j.Name)]
		if info == nil {
			return nil, skip("builder failure", "job %s missing from the built session", j.Name)
		}
		ns := j.Namespace
		if ns == "" {
			ns = defaultNamespace
		}
		className := priorityClassName(j.Priority)
		priorityClasses[j.Priority] = className
		pg, err := podGroupObject(j, info, ns, className, raw[j].preemptibility, creation[jobIndex])
		if err != nil {
			return nil, err
		}
		podGroups = append(podGroups, pg)
		all := info.GetAllPodsMap()
		for taskIndex, task := range j.Tasks {
			podName := fmt.Sprintf("%s-%d", j.Name, taskIndex)
			ti := all[common_info.PodID(podName)]
			if ti == nil {
				return nil, skip("builder failure", "task %s missing from the built session", podName)
			}
			pods = append(pods, podRecord{key: ns + "/" + podName, name: podName, job: j.Name, task: ti,
				meta: task, jobMeta: j, taskIndex: taskIndex})
		}
	}

	// Deterministic names for the GPU groups KAI's builder made up (random UUIDs) for running
	// fractional tasks that name none.
	sortedPods := append([]podRecord(nil), pods...)
	sort.SliceStable(sortedPods, func(a, b int) bool { return sortedPods[a].key < sortedPods[b].key })
	groupNames := map[string]string{}
	next := 0
	for _, p := range sortedPods {
		for _, g := range p.task.GPUGroups {
			if givenGroups[g] {
				continue
			}
			if _, ok := groupNames[g]; !ok {
				groupNames[g] = fmt.Sprintf("auto-%d", next)
				next++
			}
		}
	}

	// Priority classes, by value.
	values := make([]int, 0, len(priorityClasses))
	for v := range priorityClasses {
		values = append(values, int(v))
	}
	sort.Ints(values)
	for _, v := range values {
		objects = append(objects, &schedulingv1.PriorityClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: priorityClasses[int32(v)]},
			Value:      int32(v),
		})
	}
	objects = append(objects, podGroups...)

	jobIndexOf := map[string]int{}
	for i, j := range topo.Jobs {
		jobIndexOf[j.Name] = i
	}
	// A legacy MIG pod is one that asks for its MIG device by annotation. The test flags such
	// tasks directly; a pod object can only carry the annotation, of one of the case's MIG profiles.
	legacyProfile := "nvidia.com/mig-1g.5gb"
	var profiles []string
	for _, n := range topo.Nodes {
		for r := range n.MigInstances {
			profiles = append(profiles, string(r))
		}
	}
	sort.Strings(profiles)
	if len(profiles) > 0 {
		legacyProfile = profiles[0]
	}
	for _, p := range pods {
		if p.meta.IsLegacyMigTask && len(p.meta.RequiredMigInstances) == 0 {
			notes = append(notes, fmt.Sprintf("Task `%s` is a legacy MIG task; KAI's pod parser knows one by a MIG-resource annotation, so the pod carries `%s: \"1\"`.", p.name, legacyProfile))
		}
	}
	for _, p := range pods {
		pod, err := podObject(p, priorityClasses[p.jobMeta.Priority], creation[jobIndexOf[p.job]], groupNames, legacyProfile)
		if err != nil {
			return nil, err
		}
		objects = append(objects, pod)
	}

	cluster, err := renderCluster(objects)
	if err != nil {
		return nil, err
	}

	cycles := 1
	actions := src.Actions
	var hist map[string]*podHistory
	if src.Mode == Integration {
		until, after := c.roundsUntilMatch, c.roundsAfterMatch
		if until == 0 {
			until = 2
		}
		if after == 0 {
			after = 5
		}
		cycles = until + after
		actions = []string{"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"}
		// Replay KAI's rounds on the case (the tasks are restored afterwards).
		saved := map[*tasks_fake.TestTaskBasic]tasks_fake.TestTaskBasic{}
		for _, j := range topo.Jobs {
			for _, task := range j.Tasks {
				saved[task] = *task
			}
		}
		var err error
		hist, err = replayRounds(t, topo, cycles)
		for task, v := range saved {
			*task = v
		}
		if err != nil {
			return nil, skip("replay failure", "%v", err)
		}
	}

	expected, asserted, replayNotes := expectations(topo, sortedPods, src.Mode, hist)
	notes = append(notes, replayNotes...)
	expectedJSON := renderExpected(expected)

	config, configNotes, err := schedulerConfig(topo, actions, src.StalenessGracePeriod)
	if err != nil {
		return nil, err
	}

	args := []string{"--actions", strings.Join(actions, ",")}
	if cycles > 1 {
		args = append(args, "--cycles", strconv.Itoa(cycles))
	}
	args = append(args, "--scheduler-name", schedulerName, "--now", NowText(), "-o", "json",
		"--config", "$SCENARIO/config.yaml", "$SCENARIO/cluster.yaml")

	readme := caseReadme(src, index, name, topo, sortedPods, expected, asserted, actions, cycles, append(configNotes, notes...), nodeInfos)

	return &Result{Cycles: cycles, Caveat: caveat, Files: []File{
		{Name: "README.md", Data: []byte(readme)},
		{Name: "args.txt", Data: []byte(strings.Join(args, "\n") + "\n")},
		{Name: "cluster.yaml", Data: cluster},
		{Name: "config.yaml", Data: config},
		{Name: "kai-expected.json", Data: expectedJSON},
	}}, nil
}

// checkExpressible refuses what the objects Quotient reads cannot carry.
func checkExpressible(topo *test_utils.TestTopologyBasic) error {
	if len(topo.Topologies) > 0 {
		return skip("topology CRD", "the case defines %d Topology objects (kai.scheduler Topology CRD)", len(topo.Topologies))
	}
	if len(topo.DeviceClasses) > 0 || len(topo.ResourceSlices) > 0 || len(topo.ResourceClaims) > 0 {
		return skip("DRA", "the case uses dynamic resource allocation objects (DeviceClasses/ResourceSlices/ResourceClaims)")
	}
	if topo.Mocks != nil && topo.Mocks.Cache != nil {
		return skip("mocked cache", "the case replaces the scheduler cache with a mock")
	}
	if topo.Mocks != nil && topo.Mocks.GPUMetric != nil {
		return skip("mocked metrics", "the case mocks GPU metrics")
	}
	names := make([]string, 0, len(topo.Nodes))
	for name := range topo.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := topo.Nodes[name]
		if n.NumaTopology != nil {
			return skip("NUMA", "node %s has a NUMA topology (NodeResourceTopology)", name)
		}
		if n.GpuMemorySynced != nil {
			return skip("node internals", "node %s overrides GpuMemorySynced", name)
		}
	}
	for _, e := range topo.ExpectedNodesResources {
		if e.NUMAZonesAvailable != nil {
			return skip("NUMA", "the case asserts NUMA zone ledgers")
		}
	}
	for _, m := range []map[string]test_utils.TestExpectedResultBasic{topo.JobExpectedResults, topo.TaskExpectedResults} {
		for _, e := range m {
			if e.NUMAZones != nil {
				return skip("NUMA", "the case asserts NUMA placements")
			}
		}
	}
	for _, j := range topo.Jobs {
		if j.RootSubGroupSet != nil && hasTopologyConstraint(j.RootSubGroupSet) {
			return skip("topology CRD", "job %s has topology constraints", j.Name)
		}
		for i, task := range j.Tasks {
			if len(task.ResourceClaimNames) > 0 || len(task.ResourceClaimTemplates) > 0 {
				return skip("DRA", "task %s-%d uses resource claims", j.Name, i)
			}
			if len(task.PersistentVolumeClaimNames) > 0 {
				return skip("storage", "task %s-%d mounts persistent volume claims (PVC/StorageClass/CSI objects)", j.Name, i)
			}
			switch task.State {
			case pod_status.Pending, pod_status.Running, pod_status.Releasing, pod_status.StuckInReleasing,
				pod_status.Failed, pod_status.Succeeded, pod_status.Bound:
			default:
				return skip("session-only input state", "task %s-%d starts %s, a status only a scheduling session has (no pod object is in it)", j.Name, i, task.State)
			}
			needsNode := task.State == pod_status.Running || task.State == pod_status.Releasing ||
				task.State == pod_status.StuckInReleasing || task.State == pod_status.Bound
			if needsNode && task.NodeName == "" {
				return skip("session-only input state", "task %s-%d is %s without a node", j.Name, i, task.State)
			}
			if task.NodeName != "" && task.State != pod_status.Pending {
				if _, ok := topo.Nodes[task.NodeName]; !ok {
					return skip("dangling node", "task %s-%d runs on node %s, which the case does not define", j.Name, i, task.NodeName)
				}
			}
		}
	}
	return nil
}

func hasTopologyConstraint(s *subgroup_info.SubGroupSet) bool {
	if s.GetTopologyConstraint() != nil {
		return true
	}
	for _, p := range s.GetDirectPodSets() {
		if p.GetTopologyConstraint() != nil {
			return true
		}
	}
	for _, g := range s.GetDirectSubgroupsSets() {
		if hasTopologyConstraint(g) {
			return true
		}
	}
	return false
}

// addDefaultDepartmentIfNeeded: BuildSession puts every queue under a department "default"
// (quota -1, limit -1, over-quota weight -1) unless the case names departments or disables it.
func addDefaultDepartmentIfNeeded(topo *test_utils.TestTopologyBasic) {
	if len(topo.Departments) > 0 || topo.DisableDefaultDepartment {
		return
	}
	for i := range topo.Queues {
		topo.Queues[i].ParentQueue = "default"
	}
	topo.Departments = []test_utils.TestDepartmentBasic{{
		Name:           "default",
		DeservedGPUs:   common_info.NoMaxAllowedResource,
		MaxAllowedGPUs: common_info.NoMaxAllowedResource,
	}}
}

// jobCreationTimes: BuildJobsAndTasksMaps gives job i (of n, after its priority sort)
// now - (n - i) minutes, or now - JobAgeInMinutes; each job's "now" is read a moment after the
// previous one's, so among equal offsets a later job is newer. Timestamps have whole seconds:
// equal offsets are told apart by one second per rank.
func jobCreationTimes(jobs []*jobs_fake.TestJobBasic) []time.Time {
	n := len(jobs)
	offsets := make([]time.Duration, n)
	for i, j := range jobs {
		offsets[i] = -time.Duration(n-i) * time.Minute
		if j.JobAgeInMinutes != 0 {
			offsets[i] = -time.Duration(j.JobAgeInMinutes) * time.Minute
		}
	}
	rank := map[time.Duration]int{}
	out := make([]time.Time, n)
	for i := range jobs {
		k := rank[offsets[i]]
		rank[offsets[i]]++
		out[i] = Now.Add(offsets[i]).Add(time.Duration(k) * time.Second)
	}
	return out
}

func priorityClassName(v int32) string {
	switch v {
	case 50:
		return "train"
	case 75:
		return "interactive-preemptible"
	case 100:
		return "build"
	case 125:
		return "inference"
	}
	if v < 0 {
		return fmt.Sprintf("priority-minus-%d", -v)
	}
	return fmt.Sprintf("priority-%d", v)
}

func nodeObject(node *v1.Node, meta nodes_fake.TestNodeBasic) *v1.Node {
	out := &v1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   node.Name,
			UID:    types.UID(node.Name),
			Labels: map[string]string{},
		},
		Status: v1.NodeStatus{
			Capacity:    node.Status.Capacity.DeepCopy(),
			Allocatable: node.Status.Allocatable.DeepCopy(),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
	// (NodeStatus's nodeInfo and daemonEndpoints are dropped when rendering.)
	for k, v := range node.Labels {
		out.Labels[k] = v
	}
	if meta.MaxTaskNum != nil {
		out.Status.Allocatable[v1.ResourcePods] = *resource.NewQuantity(int64(*meta.MaxTaskNum), resource.DecimalSI)
	}
	return out
}

func queueResources(gpuQuota, gpuLimit, gpuWeight float64, cpuQuota, cpuLimit, memQuota, memLimit *float64) *enginev2.QueueResources {
	r := &enginev2.QueueResources{
		GPU:    enginev2.QueueResource{Quota: gpuQuota, Limit: gpuLimit, OverQuotaWeight: gpuWeight},
		CPU:    enginev2.QueueResource{Quota: -1, Limit: -1, OverQuotaWeight: 1},
		Memory: enginev2.QueueResource{Quota: -1, Limit: -1, OverQuotaWeight: 1},
	}
	if cpuQuota != nil {
		r.CPU.Quota = *cpuQuota
	}
	if cpuLimit != nil {
		r.CPU.Limit = *cpuLimit
	}
	if memQuota != nil {
		r.Memory.Quota = *memQuota
	}
	if memLimit != nil {
		r.Memory.Limit = *memLimit
	}
	return r
}

// queueObject: BuildQueueInfoMap's queue i, created now + i minutes.
func queueObject(q test_utils.TestQueueBasic, index int) *enginev2.Queue {
	limit := common_info.NoMaxAllowedResource
	if q.MaxAllowedGPUs != 0 {
		limit = q.MaxAllowedGPUs
	}
	out := &enginev2.Queue{
		TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.run.ai/v2", Kind: "Queue"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              q.Name,
			UID:               types.UID(q.Name),
			CreationTimestamp: metav1.Time{Time: Now.Add(time.Duration(index) * time.Minute)},
		},
		Spec: enginev2.QueueSpec{
			DisplayName:       q.Name,
			ParentQueue:       q.ParentQueue,
			Priority:          q.Priority,
			ReclaimMinRuntime: q.ReclaimMinRuntime,
			Resources: queueResources(q.DeservedGPUs, limit, q.GPUOverQuotaWeight,
				q.DeservedCPUs, q.MaxAllowedCPUs, q.DeservedMemory, q.MaxAllowedMemory),
		},
	}
	if q.V1 {
		out.Spec.Resources = nil
	}
	return out
}

// departmentObject: BuildDepartmentInfoMap's department i: GPU over-quota weight = its GPU
// quota, CPU and memory quota -1.
func departmentObject(d test_utils.TestDepartmentBasic, index int) *enginev2.Queue {
	limit := common_info.NoMaxAllowedResource
	if d.MaxAllowedGPUs != 0 {
		limit = d.MaxAllowedGPUs
	}
	return &enginev2.Queue{
		TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.run.ai/v2", Kind: "Queue"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              d.Name,
			UID:               types.UID(d.Name),
			CreationTimestamp: metav1.Time{Time: Now.Add(time.Duration(index) * time.Minute)},
		},
		Spec: enginev2.QueueSpec{
			Resources: queueResources(d.DeservedGPUs, limit, d.DeservedGPUs, nil, d.MaxAllowedCPUs, nil, d.MaxAllowedMemory),
		},
	}
}

func podGroupObject(j *jobs_fake.TestJobBasic, info *podgroup_info.PodGroupInfo, ns, className string,
	preemptibility enginev2alpha2.Preemptibility, created time.Time) (*enginev2alpha2.PodGroup, error) {
	pg := &enginev2alpha2.PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.run.ai/v2alpha2", Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              j.Name,
			Namespace:         ns,
			UID:               types.UID(j.Name),
			CreationTimestamp: metav1.Time{Time: created},
			Annotations:       map[string]string{},
		},
		Spec: enginev2alpha2.PodGroupSpec{
			Queue:                j.QueueName,
			PriorityClassName:    className,
			Preemptibility:       preemptibility,
			PreemptionDelay:      j.PreemptionDelay,
			StalenessGracePeriod: j.PerJobStalenessGracePeriod,
		},
	}
	// BuildJobInfo: a job with allocated tasks started a minute ago; a stale job became stale
	// StaleDuration ago.
	for _, task := range j.Tasks {
		if pod_status.AllocatedStatus(task.State) {
			pg.Annotations["kai.scheduler/last-start-timestamp"] = Now.Add(-time.Minute).Format(time.RFC3339)
			break
		}
	}
	if j.StaleDuration != nil {
		if *j.StaleDuration%time.Second != 0 {
			return nil, skip("sub-second time", "job %s is stale for %v, finer than a timestamp's seconds", j.Name, *j.StaleDuration)
		}
		pg.Annotations["kai.scheduler/stale-podgroup-timestamp"] = Now.Add(-*j.StaleDuration).Format(time.RFC3339)
	}
	root := info.RootSubGroupSet
	if root == nil {
		m := int32(len(j.Tasks))
		pg.Spec.MinMember = &m
		return pg, nil
	}
	if len(root.GetDirectSubgroupsSets()) == 0 && len(root.GetDirectPodSets()) == 1 &&
		root.GetDirectPodSets()[0].GetName() == podgroup_info.DefaultSubGroup && root.GetMinSubGroup() == nil {
		m := root.GetDirectPodSets()[0].GetMinAvailable()
		pg.Spec.MinMember = &m
		return pg, nil
	}
	if len(root.GetDirectSubgroupsSets()) == 0 && len(root.GetDirectPodSets()) == 0 {
		m := int32(len(j.Tasks))
		pg.Spec.MinMember = &m
		return pg, nil
	}
	pg.Spec.MinSubGroup = root.GetMinSubGroup()
	var total int32
	var walk func(s *subgroup_info.SubGroupSet, parent *string)
	walk = func(s *subgroup_info.SubGroupSet, parent *string) {
		for _, g := range s.GetDirectSubgroupsSets() {
			name := g.GetName()
			pg.Spec.SubGroups = append(pg.Spec.SubGroups, enginev2alpha2.SubGroup{
				Name: name, Parent: parent, MinSubGroup: g.GetMinSubGroup()})
			walk(g, &name)
		}
		for _, p := range s.GetDirectPodSets() {
			m := p.GetMinAvailable()
			total += m
			pg.Spec.SubGroups = append(pg.Spec.SubGroups, enginev2alpha2.SubGroup{
				Name: p.GetName(), Parent: parent, MinMember: &m})
		}
	}
	walk(root, nil)
	for _, sg := range pg.Spec.SubGroups {
		if sg.Name != strings.ToLower(sg.Name) {
			return nil, skip("subgroup names", "job %s has subgroup %q with capitals (a PodGroup's parent references are matched lower-cased)", j.Name, sg.Name)
		}
	}
	pg.Spec.MinMember = &total
	return pg, nil
}

func isExtendedResource(name v1.ResourceName) bool {
	return strings.Contains(string(name), "/")
}

func podObject(p podRecord, className string, created time.Time, groupNames map[string]string, legacyProfile string) (*v1.Pod, error) {
	src := p.task.Pod
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              p.name,
			Namespace:         strings.SplitN(p.key, "/", 2)[0],
			UID:               types.UID(p.name),
			CreationTimestamp: metav1.Time{Time: created},
			Labels:            map[string]string{},
			Annotations:       map[string]string{},
		},
		Spec: v1.PodSpec{
			SchedulerName:     schedulerName,
			PriorityClassName: className,
			Affinity:          src.Spec.Affinity,
		},
	}
	rename := func(g string) string {
		if n, ok := groupNames[g]; ok {
			return n
		}
		return g
	}
	for k, v := range src.Labels {
		switch {
		case k == pod_info.GPUGroup:
			pod.Labels[k] = rename(v)
		case strings.HasPrefix(k, pod_info.GPUGroup+"/"):
			g := strings.TrimPrefix(k, pod_info.GPUGroup+"/")
			pod.Labels[pod_info.GPUGroup+"/"+rename(g)] = rename(v)
		default:
			pod.Labels[k] = v
		}
	}
	pod.Labels["kai.scheduler/queue"] = p.jobMeta.QueueName
	if p.meta.SubGroupName != "" {
		pod.Labels["kai.scheduler/subgroup-name"] = p.meta.SubGroupName
	}
	for k, v := range src.Annotations {
		switch {
		case k == "gpu-fraction" && v == "":
		case k == "gpu-memory" && (v == "" || v == "0"):
		case resource_info.IsMigResource(v1.ResourceName(k)) && !p.meta.IsLegacyMigTask:
			// BuildPod writes the MIG request as an annotation too; to KAI's pod parser that
			// annotation marks a legacy MIG pod, which the test overrides (IsLegacyMIGtask =
			// task.IsLegacyMigTask). Only legacy tasks keep it.
		default:
			pod.Annotations[k] = v
		}
	}
	if p.meta.IsLegacyMigTask && len(p.meta.RequiredMigInstances) == 0 {
		pod.Annotations[legacyProfile] = "1"
	}
	requests := v1.ResourceList{}
	limits := v1.ResourceList{}
	for _, c := range src.Spec.Containers {
		for k, v := range c.Resources.Requests {
			if k == v1.ResourcePods {
				continue // the builder's pods: 1 is the pod itself, not a container request
			}
			requests[k] = v.DeepCopy()
			if isExtendedResource(k) {
				limits[k] = v.DeepCopy()
			}
		}
	}
	container := v1.Container{Name: "main", Image: "registry.example.com/kai-test:1",
		Resources: v1.ResourceRequirements{Requests: requests}}
	if len(limits) > 0 {
		container.Resources.Limits = limits
	}
	pod.Spec.Containers = []v1.Container{container}
	switch p.meta.State {
	case pod_status.Pending:
		pod.Status.Phase = v1.PodPending
	case pod_status.Bound:
		pod.Status.Phase = v1.PodPending
		pod.Spec.NodeName = p.meta.NodeName
	case pod_status.Running:
		pod.Status.Phase = v1.PodRunning
		pod.Spec.NodeName = p.meta.NodeName
	case pod_status.Releasing:
		pod.Status.Phase = v1.PodRunning
		pod.Spec.NodeName = p.meta.NodeName
		pod.DeletionTimestamp = &metav1.Time{Time: Now}
	case pod_status.StuckInReleasing:
		pod.Status.Phase = v1.PodRunning
		pod.Spec.NodeName = p.meta.NodeName
		pod.DeletionTimestamp = &metav1.Time{Time: Now.Add(-stuckDeletionAge)}
	case pod_status.Failed:
		pod.Status.Phase = v1.PodFailed
		pod.Spec.NodeName = p.meta.NodeName
	case pod_status.Succeeded:
		pod.Status.Phase = v1.PodSucceeded
		pod.Spec.NodeName = p.meta.NodeName
	default:
		return nil, skip("session-only input state", "task %s starts %s", p.name, p.meta.State)
	}
	if p.jobMeta.QOSClass != "" {
		pod.Status.QOSClass = p.jobMeta.QOSClass
	}
	return pod, nil
}

// ourStatus maps a KAI task status a test expects after the run to the report's pod status.
func ourStatus(s pod_status.PodStatus) string {
	switch s {
	case pod_status.Allocated, pod_status.Binding, pod_status.Bound:
		return "Bound"
	case pod_status.Running:
		return "Running"
	case pod_status.Pipelined:
		return "Pipelined"
	case pod_status.Releasing, pod_status.StuckInReleasing:
		return "Releasing"
	case pod_status.Pending:
		return "Pending"
	case pod_status.Gated:
		return "Gated"
	case pod_status.Failed:
		return "Failed"
	case pod_status.Succeeded:
		return "Succeeded"
	}
	return s.String()
}

type assertion struct {
	status     pod_status.PodStatus
	node       string
	via        string // "job" or "task"
	boundInRun bool   // integration: bound during the run (reported Bound)
}

// expectations: MatchExpectedAndRealTasks checks, for a job in JobExpectedResults, every task of
// the job; for a task in TaskExpectedResults, that task (keyed by pod UID = pod name). In an
// integration case a pod KAI expects running that was bound during the run is `Bound` in the
// report ("bound by this run"); hist (KAI's rounds replayed) says which.
func expectations(topo test_utils.TestTopologyBasic, pods []podRecord, mode Mode, hist map[string]*podHistory) ([]ExpectedPod, map[string]assertion, []string) {
	asserted := map[string]assertion{}
	var notes []string
	out := make([]ExpectedPod, 0, len(pods))
	for _, p := range pods {
		e := ExpectedPod{Pod: p.key}
		var status pod_status.PodStatus
		found := false
		if r, ok := topo.JobExpectedResults[p.job]; ok {
			status, e.Node, found = r.Status, r.NodeName, true
			asserted[p.key] = assertion{status: r.Status, node: r.NodeName, via: "job"}
		}
		if r, ok := topo.TaskExpectedResults[p.name]; ok {
			status, found = r.Status, true
			if r.NodeName != "" {
				e.Node = r.NodeName
			}
			asserted[p.key] = assertion{status: r.Status, node: e.Node, via: "task"}
		}
		if found && status == pod_status.Pending && e.Node != "" {
			// A pending pod has no node in the report. The session keeps the node name a test
			// gives a pending task (see the note on such tasks), and the test may assert it.
			notes = append(notes, fmt.Sprintf("KAI's test also asserts node `%s` for `%s`, which it expects pending: the session "+
				"keeps the node name the test gave the pending task; a pending pod has no node, so only the status is compared.", e.Node, p.key))
			e.Node = ""
			a := asserted[p.key]
			a.node = ""
			asserted[p.key] = a
		}
		if found {
			e.Status = ourStatus(status)
			if mode == Integration && hist != nil {
				h := hist[p.name]
				if h != nil && status == pod_status.Running && h.boundInRun {
					e.Status = "Bound"
					a := asserted[p.key]
					a.boundInRun = true
					asserted[p.key] = a
				}
				if h != nil && h.final != status {
					notes = append(notes, fmt.Sprintf("Replaying KAI's rounds ends with `%s` %s, not the %s the test expects.", p.key, h.final, status))
				}
			}
		}
		out = append(out, e)
	}
	return out, asserted, notes
}

func renderExpected(pods []ExpectedPod) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"pods\": [")
	for i, p := range pods {
		if i > 0 {
			b.WriteString(",")
		}
		data, _ := json.Marshal(p)
		b.WriteString("\n    ")
		b.Write(data)
	}
	if len(pods) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return []byte(b.String())
}
