package main

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	schedulingv1alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v1alpha2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/common_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/eviction_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/podgroup_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/cache"
)

// Decision kinds of the report.
const (
	kindBind     = "bind"
	kindEvict    = "evict"
	kindPipeline = "pipeline"
)

// decision is one entry of cycles[].decisions[]: gpuGroups only for binds, reason only for
// evictions (pointers so that empty values still print where they belong).
type decision struct {
	Action    string    `json:"action"`
	Kind      string    `json:"kind"`
	Pod       string    `json:"pod"`
	Node      string    `json:"node"`
	GpuGroups *[]string `json:"gpuGroups,omitempty"`
	Reason    *string   `json:"reason,omitempty"`
}

// jobStatusRecorder is what KAI's status updater offers to a cache (status_updater.Interface's
// RecordJobStatusEvent).
type jobStatusRecorder interface {
	RecordJobStatusEvent(job *podgroup_info.PodGroupInfo,
		resolveDetailedFitErrors func(*podgroup_info.PodGroupInfo, *pod_info.PodInfo) ([]*common_info.TasksFitError, error)) error
}

// recordingCache is the cache the session gets: KAI's own cache, with the calls through which a
// session acts on the cluster recorded. Binds go on to KAI's cache (a bind request is created
// in the fake API, so KAI sees its own binds as it would); evictions are recorded and not
// executed (the fake API server cannot take hundreds of deletions at once, and the world advance
// re-creates evicted pods itself); pipelined tasks and job status events are recorded. Job
// status events go to a KAI status updater of our own whose event recorder keeps the messages:
// they are the reasons the report gives for pending pods.
type recordingCache struct {
	cache.Cache
	action    string // the action now running, set by the cycle
	decisions []decision
	statuses  jobStatusRecorder
	jobs      []*podgroup_info.PodGroupInfo // the jobs whose status was recorded, in order
}

func (c *recordingCache) Bind(task *pod_info.PodInfo, hostname string, bindRequestAnnotations map[string]string,
	numaZones []schedulingv1alpha2.NUMAZonePlacement) error {
	if err := c.Cache.Bind(task, hostname, bindRequestAnnotations, numaZones); err != nil {
		return err
	}
	groups := append([]string{}, task.GPUGroups...)
	c.decisions = append(c.decisions, decision{
		Action: c.action, Kind: kindBind, Pod: task.Namespace + "/" + task.Name, Node: hostname,
		GpuGroups: &groups,
	})
	return nil
}

func (c *recordingCache) Evict(pod *v1.Pod, _ *podgroup_info.PodGroupInfo, _ eviction_info.EvictionMetadata,
	message string) error {
	reason := message
	c.decisions = append(c.decisions, decision{
		Action: c.action, Kind: kindEvict, Pod: pod.Namespace + "/" + pod.Name, Node: pod.Spec.NodeName,
		Reason: &reason,
	})
	return nil
}

func (c *recordingCache) TaskPipelined(task *pod_info.PodInfo, _ string) {
	c.decisions = append(c.decisions, decision{
		Action: c.action, Kind: kindPipeline, Pod: task.Namespace + "/" + task.Name, Node: task.NodeName,
	})
}

func (c *recordingCache) RecordJobStatusEvent(job *podgroup_info.PodGroupInfo,
	resolve func(*podgroup_info.PodGroupInfo, *pod_info.PodInfo) ([]*common_info.TasksFitError, error)) error {
	c.jobs = append(c.jobs, job)
	return c.statuses.RecordJobStatusEvent(job, resolve)
}

// eventCapture is a record.EventRecorder that keeps the messages KAI's status updater records:
// per pod its Unschedulable message, per PodGroup its NotReady and Unschedulable messages.
type eventCapture struct {
	mu                 sync.Mutex
	podUnschedulable   map[string]string
	groupNotReady      map[string]string
	groupUnschedulable map[string]string
}

func newEventCapture() *eventCapture {
	return &eventCapture{
		podUnschedulable:   map[string]string{},
		groupNotReady:      map[string]string{},
		groupUnschedulable: map[string]string{},
	}
}

func (e *eventCapture) Event(object runtime.Object, _, reason, message string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch o := object.(type) {
	case *v1.Pod:
		if reason == v1.PodReasonUnschedulable {
			e.podUnschedulable[o.Namespace+"/"+o.Name] = message
		}
	case *enginev2alpha2.PodGroup:
		switch reason {
		case "NotReady":
			e.groupNotReady[o.Namespace+"/"+o.Name] = message
		case enginev2alpha2.PodGroupReasonUnschedulable:
			e.groupUnschedulable[o.Namespace+"/"+o.Name] = message
		}
	}
}

func (e *eventCapture) Eventf(object runtime.Object, eventType, reason, messageFmt string, args ...interface{}) {
	e.Event(object, eventType, reason, fmt.Sprintf(messageFmt, args...))
}

func (e *eventCapture) AnnotatedEventf(object runtime.Object, _ map[string]string, eventType, reason,
	messageFmt string, args ...interface{}) {
	e.Eventf(object, eventType, reason, messageFmt, args...)
}
