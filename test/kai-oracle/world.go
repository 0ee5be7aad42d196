package main

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	enginev2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	schedulingv1defaults "k8s.io/kubernetes/pkg/apis/scheduling/v1"

	commonconstants "github.com/kai-scheduler/KAI-scheduler/pkg/common/constants"
	groupconstants "github.com/kai-scheduler/KAI-scheduler/pkg/podgrouper/podgrouper/plugins/constants"
)

// The labels the binder puts on a pod that shares GPUs (one group; one label per group for
// multi-device fractions), as src/scheduler/world.cc writes them.
const (
	gpuGroupLabel       = commonconstants.GPUGroup
	multiGpuGroupPrefix = commonconstants.MultiGpuGroupLabelPrefix
)

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func podGroupKey(pg *enginev2alpha2.PodGroup) string { return pg.Namespace + "/" + pg.Name }

// normalizeWorld makes the objects what an API server would hold: the API server's defaults
// (a container's requests default to its limits: a GPU given only as a limit is requested), a
// Pending phase for a pod without one, the "default" namespace for namespaced objects that name
// none, a UID for every object (KAI keys pods by UID); a second object of the same kind and name
// is dropped (the first wins, as in quotient).
func normalizeWorld(w *objects) []string {
	var warnings []string
	dup := func(kind, key string) {
		warnings = append(warnings, fmt.Sprintf("%s %s: duplicate object; the first definition is used", kind, key))
	}
	seen := map[string]bool{}
	first := func(kind, key string) bool {
		k := kind + " " + key
		if seen[k] {
			dup(kind, key)
			return false
		}
		seen[k] = true
		return true
	}
	nodes := w.Nodes[:0]
	for _, n := range w.Nodes {
		if n.Name != "" && first("Node", n.Name) {
			corev1defaults.SetObjectDefaults_Node(n)
			setUID(&n.ObjectMeta, "node")
			nodes = append(nodes, n)
		}
	}
	w.Nodes = nodes
	pods := w.Pods[:0]
	for _, p := range w.Pods {
		if p.Namespace == "" {
			p.Namespace = metav1.NamespaceDefault
		}
		if p.Name != "" && first("Pod", podKey(p)) {
			corev1defaults.SetObjectDefaults_Pod(p)
			if p.Status.Phase == "" {
				p.Status.Phase = corev1.PodPending
			}
			setUID(&p.ObjectMeta, "pod")
			pods = append(pods, p)
		}
	}
	w.Pods = pods
	queues := w.Queues[:0]
	for _, q := range w.Queues {
		if q.Name != "" && first("Queue", q.Name) {
			setUID(&q.ObjectMeta, "queue")
			queues = append(queues, q)
		}
	}
	w.Queues = queues
	groups := w.PodGroups[:0]
	for _, pg := range w.PodGroups {
		if pg.Namespace == "" {
			pg.Namespace = metav1.NamespaceDefault
		}
		if pg.Name != "" && first("PodGroup", podGroupKey(pg)) {
			setUID(&pg.ObjectMeta, "podgroup")
			groups = append(groups, pg)
		}
	}
	w.PodGroups = groups
	classes := w.PriorityClasses[:0]
	for _, pc := range w.PriorityClasses {
		if pc.Name != "" && first("PriorityClass", pc.Name) {
			schedulingv1defaults.SetObjectDefaults_PriorityClass(pc)
			setUID(&pc.ObjectMeta, "priorityclass")
			classes = append(classes, pc)
		}
	}
	w.PriorityClasses = classes
	return warnings
}

// setUID gives an object without one a UID derived from its kind and key, so that runs repeat.
func setUID(m *metav1.ObjectMeta, kind string) {
	if m.UID == "" {
		m.UID = types.UID("oracle-" + kind + "-" + m.Namespace + "-" + m.Name)
	}
}

// addImplicitPodGroups does what KAI's pod grouper does for a pod of this scheduler with no
// pod-group-name annotation, exactly as quotient groups such pods implicitly (src/core/jobs.cc):
// a PodGroup `pg-<pod>` in the pod's namespace, in the queue of the pod's queue label (else its
// `project` label, else `default-queue`), minMember 1, the pod's priority class and
// preemptibility label, the pod's labels; the pod is annotated with the group's name. The groups
// are created once, at load: like the pod grouper's, they persist across cycles.
func addImplicitPodGroups(w *objects, schedulerName, queueLabelKey string) {
	taken := map[string]bool{}
	for _, pg := range w.PodGroups {
		taken[podGroupKey(pg)] = true
	}
	for _, pod := range w.Pods {
		if pod.Spec.SchedulerName != schedulerName {
			continue
		}
		if _, grouped := pod.Annotations[commonconstants.PodGroupAnnotationForPod]; grouped {
			continue
		}
		name := "pg-" + pod.Name
		for taken[pod.Namespace+"/"+name] {
			name += "-implicit"
		}
		taken[pod.Namespace+"/"+name] = true
		w.PodGroups = append(w.PodGroups, implicitPodGroup(pod, name, queueLabelKey))
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[commonconstants.PodGroupAnnotationForPod] = name
	}
}

func implicitPodGroup(pod *corev1.Pod, name, queueLabelKey string) *enginev2alpha2.PodGroup {
	queue := "default-queue"
	if q, ok := pod.Labels[queueLabelKey]; ok {
		queue = q
	} else if q, ok := pod.Labels["project"]; ok {
		queue = q
	}
	labels := map[string]string{}
	for k, v := range pod.Labels {
		labels[k] = v
	}
	pg := &enginev2alpha2.PodGroup{
		TypeMeta: metav1.TypeMeta{Kind: "PodGroup", APIVersion: "scheduling.run.ai/v2alpha2"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         pod.Namespace,
			UID:               types.UID("oracle-podgroup-" + pod.Namespace + "-" + name),
			CreationTimestamp: pod.CreationTimestamp,
			Labels:            labels,
		},
		Spec: enginev2alpha2.PodGroupSpec{
			MinMember:         ptr.To(int32(1)),
			Queue:             queue,
			PriorityClassName: pod.Spec.PriorityClassName,
		},
	}
	if value, ok := pod.Labels[groupconstants.PreemptibilityLabelKey]; ok {
		if p, err := enginev2alpha2.ParsePreemptibility(value); err == nil {
			pg.Spec.Preemptibility = p
		}
	}
	return pg
}

// advanceWorld moves the world to the next cycle as src/scheduler/world.cc does: a pod bound in
// the cycle runs on its node with its GPU-group labels; an evicted pod is re-created Pending with
// the same name and PodGroup (or deleted with --delete-evicted); everything else is unchanged
// (pipelined pods stay Pending, terminating pods stay terminating). Then the PodGroup
// annotations KAI's status updater would have written are applied.
func advanceWorld(w *objects, c *cycleResult, deleteEvicted bool) {
	binds := map[string]*decision{}
	evicts := map[string]bool{}
	for i := range c.decisions {
		d := &c.decisions[i]
		switch d.Kind {
		case kindBind:
			binds[d.Pod] = d
		case kindEvict:
			evicts[d.Pod] = true
		}
	}
	pods := make([]*corev1.Pod, 0, len(w.Pods))
	for _, pod := range w.Pods {
		key := podKey(pod)
		if evicts[key] {
			if deleteEvicted {
				continue
			}
			resetAsRecreated(pod)
		} else if d, ok := binds[key]; ok {
			applyBind(pod, d)
		}
		pods = append(pods, pod)
	}
	w.Pods = pods
	for _, pg := range w.PodGroups {
		updates, ok := c.annotations[podGroupKey(pg)]
		if !ok {
			continue
		}
		for key, value := range updates {
			if value == nil {
				delete(pg.Annotations, key)
				continue
			}
			if pg.Annotations == nil {
				pg.Annotations = map[string]string{}
			}
			pg.Annotations[key] = *value
		}
	}
}

// resetAsRecreated turns an evicted pod into its re-created self: no node, Pending, not
// terminating, and no GPU group until the binder assigns one.
func resetAsRecreated(pod *corev1.Pod) {
	pod.Spec.NodeName = ""
	pod.Status.Phase = corev1.PodPending
	pod.DeletionTimestamp = nil
	for k := range pod.Labels {
		if k == gpuGroupLabel || strings.HasPrefix(k, multiGpuGroupPrefix) {
			delete(pod.Labels, k)
		}
	}
}

func applyBind(pod *corev1.Pod, d *decision) {
	pod.Spec.NodeName = d.Node
	pod.Status.Phase = corev1.PodRunning
	var groups []string
	if d.GpuGroups != nil {
		groups = *d.GpuGroups
	}
	if len(groups) == 0 {
		return
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	if len(groups) == 1 {
		pod.Labels[gpuGroupLabel] = groups[0]
		return
	}
	for _, g := range groups {
		pod.Labels[multiGpuGroupPrefix+g] = g
	}
}

// keepShard keeps the objects of the node pool KAI serves, by the rule of quotient's
// core/shard.h: Nodes, Queues and PodGroups by their node-pool label (absent for the default
// pool, ""); a bound pod where its node is, a pending pod where its PodGroup is, a pod with
// neither by its own label. KAI's cache filters Nodes, Queues and PodGroups the same way and
// never sees the rest; dropping it here keeps it out of the report too, as quotient leaves it.
func keepShard(w *objects, key, value string) {
	if key == "" {
		return
	}
	in := func(labels map[string]string) bool {
		v, ok := labels[key]
		if !ok {
			return value == ""
		}
		return v == value
	}
	nodes := map[string]bool{}
	var keptNodes []*corev1.Node
	for _, n := range w.Nodes {
		if in(n.Labels) {
			nodes[n.Name] = true
			keptNodes = append(keptNodes, n)
		}
	}
	w.Nodes = keptNodes
	var keptQueues []*enginev2.Queue
	for _, q := range w.Queues {
		if in(q.Labels) {
			keptQueues = append(keptQueues, q)
		}
	}
	w.Queues = keptQueues
	groups := map[string]bool{}
	var keptGroups []*enginev2alpha2.PodGroup
	for _, g := range w.PodGroups {
		if in(g.Labels) {
			groups[g.Namespace+"/"+g.Name] = true
			keptGroups = append(keptGroups, g)
		}
	}
	w.PodGroups = keptGroups
	var keptPods []*corev1.Pod
	for _, p := range w.Pods {
		var keep bool
		switch name := p.Annotations[commonconstants.PodGroupAnnotationForPod]; {
		case p.Spec.NodeName != "":
			keep = nodes[p.Spec.NodeName]
		case name != "":
			keep = groups[p.Namespace+"/"+name]
		default:
			keep = in(p.Labels)
		}
		if keep {
			keptPods = append(keptPods, p)
		}
	}
	w.Pods = keptPods
}
