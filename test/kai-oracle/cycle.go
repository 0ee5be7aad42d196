package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	kaifake "github.com/kai-scheduler/KAI-scheduler/pkg/apis/client/clientset/versioned/fake"
	schedulingv1alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v1alpha2"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/cache"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/cache/status_updater"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/conf"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/framework"
)

// One ServeMux for the process, as the real scheduler has one: KAI's plugin server registers
// itself on the first session's mux only.
var sessionMux = http.NewServeMux()

// taskState is a pod as KAI's session holds it when the actions are done.
type taskState struct {
	status    pod_status.PodStatus
	node      string
	gpuGroups []string
}

// podSetState is a leaf subgroup of a KAI job: its minimum and its pods.
type podSetState struct {
	minAvailable int32
	pods         []string
}

// jobState is a KAI job (PodGroup) at the end of the actions.
type jobState struct {
	minMember int32
	podSets   []podSetState
}

// queueState is a queue as KAI's proportion plugin holds it (fairShare when the session opened,
// allocated and requested when the actions are done).
type queueState struct {
	name, parent string
	priority     int
	deserved     [3]float64 // gpu, cpu (millicores), memory (bytes); -1 unlimited
	limit        [3]float64
	fairShare    [3]float64
	allocated    [3]float64
	requested    [3]float64
}

// cycleResult is what one KAI session did and ended with.
type cycleResult struct {
	decisions   []decision
	tasks       map[string]*taskState // by pod "ns/name"
	jobs        map[string]*jobState  // by PodGroup "ns/name"
	queues      map[string]*queueState
	events      *eventCapture
	annotations map[string]map[string]*string // by PodGroup: annotation -> value (nil: delete)
}

// runCycle runs one KAI scheduling cycle on the world, its timestamps moved by shift (clock.go):
// fresh fake API clients holding the objects, KAI's cache over them, a session with the
// configured plugins, each configured action, and the session's close.
func runCycle(w *objects, s *caseSettings, shift time.Duration) (*cycleResult, error) {
	shifted := shiftedCopy(w, shift)
	kubeObjects, kaiObjects, want := clientObjects(shifted, s.params.PartitionParams)
	kubeClient := kubefake.NewSimpleClientset(kubeObjects...)
	kaiClient := kaifake.NewSimpleClientset(kaiObjects...)

	realCache := cache.New(&cache.SchedulerCacheParams{
		KubeClient:                  eventlessClient{kubeClient},
		KAISchedulerClient:          kaiClient,
		SchedulerName:               s.params.SchedulerName,
		NodePoolParams:              s.params.PartitionParams,
		RestrictNodeScheduling:      s.params.RestrictSchedulingNodes,
		DetailedFitErrors:           s.params.DetailedFitErrors,
		ScheduleCSIStorage:          s.params.ScheduleCSIStorage,
		FullHierarchyFairness:       s.params.FullHierarchyFairness,
		AllowConsolidatingReclaim:   s.params.AllowConsolidatingReclaim,
		NumOfStatusRecordingWorkers: s.params.NumOfStatusRecordingWorkers,
		UpdatePodEvictionCondition:  s.params.UpdatePodEvictionCondition,
		StuckInReleasingThreshold:   s.params.StuckInReleasingThreshold,
		DiscoveryClient:             kubeClient.Discovery(),
	})
	if realCache == nil {
		return nil, fmt.Errorf("KAI's cache could not be created")
	}
	stop := make(chan struct{})
	defer close(stop)
	realCache.Run(stop)
	if err := waitForObjects(realCache, want, 30*time.Second); err != nil {
		return nil, err
	}

	events := newEventCapture()
	// Its own clients are empty, so its writes fail fast (not found) and go nowhere; fresh ones
	// each cycle, as a fake client keeps every call it was asked for.
	updater := status_updater.New(kubefake.NewSimpleClientset(), kaifake.NewSimpleClientset(), events, 1,
		s.params.DetailedFitErrors, s.params.PartitionParams.NodePoolLabelKey)
	updater.Run(stop)
	recorder := &recordingCache{Cache: realCache, statuses: updater}

	ssn, err := framework.OpenSession(recorder, s.config, &s.params, "kai-oracle", sessionMux)
	if err != nil {
		return nil, fmt.Errorf("KAI could not open a session: %v", err)
	}
	if s.roundFairShares {
		roundFairShares(ssn)
	}
	result := &cycleResult{events: events}
	result.queues = openQueues(ssn)
	for _, action := range s.actions {
		recorder.action = string(action.Name())
		action.Execute(ssn)
		recorder.decisions = notePipelined(ssn, recorder.action, recorder.decisions)
	}
	closeQueues(ssn, result.queues)
	result.tasks, result.jobs = sessionTasks(ssn)
	result.decisions = keepLivePipelines(recorder.decisions, result.tasks)
	framework.CloseSession(ssn) // records every job's status (reasons, annotations)
	result.annotations = annotationUpdates(recorder, shift)
	return result, nil
}

// objectCounts is how many objects KAI's listers must show before the cycle can start.
type objectCounts struct{ nodes, pods, queues, podGroups, priorityClasses, bindRequests int }

// clientObjects are the objects for the fake API: all but finished pods, which KAI's pod
// informer never lists (it selects status.phase!=Succeeded,Failed; the fake API ignores field
// selectors). It also counts what KAI's listers will show, through the node-pool selector KAI
// lists nodes, queues and PodGroups with.
func clientObjects(w *objects, partition *conf.SchedulingNodePoolParams) ([]runtime.Object, []runtime.Object, objectCounts) {
	selector, err := partition.GetLabelSelector()
	if err != nil {
		selector = labels.Everything()
	}
	var kube, kai []runtime.Object
	var want objectCounts
	for _, n := range w.Nodes {
		kube = append(kube, n)
		if selector.Matches(labels.Set(n.Labels)) {
			want.nodes++
		}
	}
	for _, p := range w.Pods {
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		kube = append(kube, p)
		want.pods++
	}
	for _, pc := range w.PriorityClasses {
		kube = append(kube, pc)
		want.priorityClasses++
	}
	for _, q := range w.Queues {
		kai = append(kai, q)
		if selector.Matches(labels.Set(q.Labels)) {
			want.queues++
		}
	}
	for _, br := range multiFractionBindRequests(w.Pods) {
		kai = append(kai, br)
		want.bindRequests++
	}
	for _, pg := range w.PodGroups {
		kai = append(kai, pg)
		if selector.Matches(labels.Set(pg.Labels)) {
			want.podGroups++
		}
	}
	return kube, kai, want
}

// waitForObjects waits until KAI's informers hold every object, polling its listers every
// 50µs. KAI's own WaitForCacheSync polls every 100ms, which would cost most of a small case;
// the informers of kinds the case has none of need no wait: empty before and after their list.
func waitForObjects(c cache.Cache, want objectCounts, timeout time.Duration) error {
	lister := c.GetDataLister()
	deadline := time.Now().Add(timeout)
	for {
		nodes, _ := lister.ListNodes()
		pods, _ := lister.ListPods()
		queues, _ := lister.ListQueues()
		groups, _ := lister.ListPodGroups()
		classes, _ := lister.ListPriorityClasses()
		binds, _ := lister.ListBindRequests()
		got := objectCounts{len(nodes), len(pods), len(queues), len(groups), len(classes), len(binds)}
		if got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("KAI's informers hold %+v objects, want %+v", got, want)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// notePipelined records, after an action, the tasks it left Pipelined that no commit reported
// (a pipelined task normally reaches the cache through TaskPipelined when its statement commits).
func notePipelined(ssn *framework.Session, action string, decisions []decision) []decision {
	recorded := map[string]bool{}
	for _, d := range decisions {
		if d.Kind == kindPipeline {
			recorded[d.Pod] = true
		}
	}
	for _, job := range ssn.ClusterInfo.PodGroupInfos {
		for _, task := range job.PodStatusIndex[pod_status.Pipelined] {
			key := task.Namespace + "/" + task.Name
			if !recorded[key] {
				decisions = append(decisions, decision{Action: action, Kind: kindPipeline, Pod: key, Node: task.NodeName})
			}
		}
	}
	return decisions
}

// keepLivePipelines drops pipeline decisions of tasks no longer Pipelined when the actions end:
// the pipelined tasks of a cycle are those it leaves Pipelined.
func keepLivePipelines(decisions []decision, tasks map[string]*taskState) []decision {
	out := decisions[:0]
	for _, d := range decisions {
		if d.Kind == kindPipeline {
			if t, ok := tasks[d.Pod]; !ok || t.status != pod_status.Pipelined {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// sessionTasks reads every task and job of the session.
func sessionTasks(ssn *framework.Session) (map[string]*taskState, map[string]*jobState) {
	tasks := map[string]*taskState{}
	jobs := map[string]*jobState{}
	add := func(t *pod_info.PodInfo) string {
		key := t.Namespace + "/" + t.Name
		tasks[key] = &taskState{status: t.Status, node: t.NodeName, gpuGroups: append([]string{}, t.GPUGroups...)}
		return key
	}
	for _, job := range ssn.ClusterInfo.PodGroupInfos {
		js := &jobState{}
		for _, ps := range job.GetAllPodSets() {
			set := podSetState{minAvailable: ps.GetMinAvailable()}
			for _, t := range ps.GetPodInfos() {
				set.pods = append(set.pods, add(t))
			}
			js.minMember += set.minAvailable
			js.podSets = append(js.podSets, set)
		}
		for _, t := range job.GetInvalidSubGroupTasks() {
			add(t)
		}
		jobs[job.Namespace+"/"+job.Name] = js
	}
	return tasks, jobs
}

// annotationUpdates are the time annotations KAI's status updater would have written on each
// PodGroup this cycle (stale since, last start, last eviction), in the world's frame.
func annotationUpdates(c *recordingCache, shift time.Duration) map[string]map[string]*string {
	out := map[string]map[string]*string{}
	for _, job := range c.jobs {
		if job.PodGroup == nil {
			continue
		}
		values := map[string]*string{}
		for key, t := range map[string]*time.Time{
			timeAnnotations[0]: job.StalenessInfo.TimeStamp,
			timeAnnotations[1]: job.LastStartTimestamp,
			timeAnnotations[2]: job.LastEvictionTimestamp,
		} {
			if t == nil {
				values[key] = nil
				continue
			}
			text := unshiftedAnnotation(*t, shift)
			values[key] = &text
		}
		out[job.PodGroup.Namespace+"/"+job.PodGroup.Name] = values
	}
	return out
}

// multiFractionBindRequests gives each running multi-device fractional pod the BindRequest a KAI
// cluster keeps for it. KAI's binder labels such a pod only with runai-gpu-group/<group> labels,
// which KAI's scheduler does not read back without the plain runai-gpu-group label
// (resources.GetGpuGroups); in a cluster it reads the groups from the pod's BindRequest instead
// (pod_info.updatePodAdditionalFields), which lives as long as the pod. The input has no
// BindRequests, so the oracle makes them.
func multiFractionBindRequests(pods []*v1.Pod) []*schedulingv1alpha2.BindRequest {
	var out []*schedulingv1alpha2.BindRequest
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if _, single := p.Labels[gpuGroupLabel]; single {
			continue
		}
		var groups []string
		for k, v := range p.Labels {
			if strings.HasPrefix(k, multiGpuGroupPrefix) {
				groups = append(groups, v)
			}
		}
		if len(groups) == 0 {
			continue
		}
		sort.Strings(groups)
		out = append(out, &schedulingv1alpha2.BindRequest{
			TypeMeta:   metav1.TypeMeta{Kind: "BindRequest", APIVersion: "scheduling.run.ai/v1alpha2"},
			ObjectMeta: metav1.ObjectMeta{Name: p.Name + "-oracle", Namespace: p.Namespace},
			Spec: schedulingv1alpha2.BindRequestSpec{
				PodName:              p.Name,
				SelectedNode:         p.Spec.NodeName,
				ReceivedResourceType: string(pod_info.ReceivedTypeFraction),
				SelectedGPUGroups:    groups,
			},
			Status: schedulingv1alpha2.BindRequestStatus{Phase: schedulingv1alpha2.BindRequestPhaseSucceeded},
		})
	}
	return out
}
