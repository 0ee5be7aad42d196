package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
)

func pod(ns, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PodSpec{SchedulerName: "quotient", Containers: []corev1.Container{{
			Name: "c",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				"nvidia.com/gpu": resource.MustParse("1")}},
		}}},
	}
}

func TestNormalizeWorldDefaultsAndDuplicates(t *testing.T) {
	w := &objects{Pods: []*corev1.Pod{pod("", "p", nil), pod("default", "p", nil)}}
	warnings := normalizeWorld(w)
	if len(w.Pods) != 1 || len(warnings) != 1 {
		t.Fatalf("pods %d, warnings %v", len(w.Pods), warnings)
	}
	p := w.Pods[0]
	if p.Namespace != "default" || p.UID == "" || p.Status.Phase != corev1.PodPending {
		t.Errorf("namespace %q, uid %q, phase %q", p.Namespace, p.UID, p.Status.Phase)
	}
	// The API server's defaults: requests default to limits (a GPU only given as a limit).
	if q := p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("GPU request %v", q.String())
	}
}

func TestImplicitPodGroups(t *testing.T) {
	labelled := pod("ml", "a", map[string]string{"kai.scheduler/queue": "q1", "project": "q2",
		"kai.scheduler/preemptibility": "non-preemptible"})
	project := pod("ml", "b", map[string]string{"project": "q2"})
	plain := pod("ml", "c", nil)
	plain.Spec.PriorityClassName = "train"
	grouped := pod("ml", "d", nil)
	grouped.Annotations = map[string]string{"pod-group-name": "explicit"}
	foreign := pod("ml", "e", nil)
	foreign.Spec.SchedulerName = "default-scheduler"
	taken := &enginev2alpha2.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "pg-c", Namespace: "ml"}}
	w := &objects{Pods: []*corev1.Pod{labelled, project, plain, grouped, foreign},
		PodGroups: []*enginev2alpha2.PodGroup{taken}}
	addImplicitPodGroups(w, "quotient", "kai.scheduler/queue")

	if len(w.PodGroups) != 4 {
		t.Fatalf("%d pod groups", len(w.PodGroups))
	}
	byName := map[string]*enginev2alpha2.PodGroup{}
	for _, pg := range w.PodGroups {
		byName[pg.Name] = pg
	}
	check := func(pod *corev1.Pod, group, queue string) *enginev2alpha2.PodGroup {
		t.Helper()
		if got := pod.Annotations["pod-group-name"]; got != group {
			t.Errorf("%s: pod-group-name %q, want %q", pod.Name, got, group)
		}
		pg := byName[group]
		if pg == nil {
			t.Fatalf("no PodGroup %s", group)
		}
		if pg.Spec.Queue != queue || pg.Spec.MinMember == nil || *pg.Spec.MinMember != 1 ||
			pg.Namespace != "ml" {
			t.Errorf("%s: queue %q minMember %v namespace %q", group, pg.Spec.Queue, pg.Spec.MinMember, pg.Namespace)
		}
		return pg
	}
	if pg := check(labelled, "pg-a", "q1"); pg.Spec.Preemptibility != enginev2alpha2.NonPreemptible {
		t.Errorf("pg-a preemptibility %q", pg.Spec.Preemptibility)
	}
	check(project, "pg-b", "q2")
	// pg-c is taken by an explicit PodGroup: the implicit one gets a suffix (as in quotient).
	if pg := check(plain, "pg-c-implicit", "default-queue"); pg.Spec.PriorityClassName != "train" {
		t.Errorf("priority class %q", pg.Spec.PriorityClassName)
	}
	if _, ok := foreign.Annotations["pod-group-name"]; ok {
		t.Error("a pod of another scheduler got a PodGroup")
	}
}

func TestAdvanceWorld(t *testing.T) {
	bound := pod("ml", "bound", nil)
	multi := pod("ml", "multi", nil)
	evicted := pod("ml", "evicted", map[string]string{"runai-gpu-group": "g0", "runai-gpu-group/g1": "g1", "keep": "x"})
	evicted.Spec.NodeName = "n1"
	evicted.Status.Phase = corev1.PodRunning
	both := pod("ml", "both", nil)
	pipelined := pod("ml", "pipelined", nil)
	pipelined.Status.Phase = corev1.PodPending
	terminating := pod("ml", "terminating", nil)
	terminating.Spec.NodeName = "n2"
	terminating.Status.Phase = corev1.PodRunning
	terminating.DeletionTimestamp = &metav1.Time{}
	pg := &enginev2alpha2.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ml",
		Annotations: map[string]string{"kai.scheduler/stale-podgroup-timestamp": "2026-03-01T11:00:00Z"}}}
	w := &objects{Pods: []*corev1.Pod{bound, multi, evicted, both, pipelined, terminating},
		PodGroups: []*enginev2alpha2.PodGroup{pg}}
	groups := func(g ...string) *[]string { return &g }
	reason := "r"
	start := "2026-03-01T12:00:00Z"
	c := &cycleResult{
		decisions: []decision{
			{Kind: kindBind, Pod: "ml/bound", Node: "n1", GpuGroups: groups("g7")},
			{Kind: kindBind, Pod: "ml/multi", Node: "n2", GpuGroups: groups("g1", "g2")},
			{Kind: kindEvict, Pod: "ml/evicted", Node: "n1", Reason: &reason},
			{Kind: kindBind, Pod: "ml/both", Node: "n1", GpuGroups: groups()},
			{Kind: kindEvict, Pod: "ml/both", Node: "n1", Reason: &reason},
			{Kind: kindPipeline, Pod: "ml/pipelined", Node: "n1"},
		},
		annotations: map[string]map[string]*string{"ml/g": {
			"kai.scheduler/stale-podgroup-timestamp": nil,
			"kai.scheduler/last-start-timestamp":     &start,
		}},
	}
	advanceWorld(w, c, false)

	if bound.Spec.NodeName != "n1" || bound.Status.Phase != corev1.PodRunning || bound.Labels["runai-gpu-group"] != "g7" {
		t.Errorf("bound: node %q phase %q labels %v", bound.Spec.NodeName, bound.Status.Phase, bound.Labels)
	}
	if multi.Labels["runai-gpu-group/g1"] != "g1" || multi.Labels["runai-gpu-group/g2"] != "g2" {
		t.Errorf("multi-GPU labels %v", multi.Labels)
	}
	if evicted.Spec.NodeName != "" || evicted.Status.Phase != corev1.PodPending || len(evicted.Labels) != 1 {
		t.Errorf("evicted: node %q phase %q labels %v", evicted.Spec.NodeName, evicted.Status.Phase, evicted.Labels)
	}
	if both.Spec.NodeName != "" {
		t.Errorf("a pod bound and evicted in one cycle is re-created: node %q", both.Spec.NodeName)
	}
	if pipelined.Spec.NodeName != "" || pipelined.Status.Phase != corev1.PodPending {
		t.Error("a pipelined pod stays Pending")
	}
	if terminating.DeletionTimestamp == nil || terminating.Spec.NodeName != "n2" {
		t.Error("a terminating pod stays terminating on its node")
	}
	if _, ok := pg.Annotations["kai.scheduler/stale-podgroup-timestamp"]; ok ||
		pg.Annotations["kai.scheduler/last-start-timestamp"] != start {
		t.Errorf("annotations %v", pg.Annotations)
	}

	// --delete-evicted: evicted pods are gone.
	w = &objects{Pods: []*corev1.Pod{pod("ml", "x", nil), pod("ml", "y", nil)}}
	advanceWorld(w, &cycleResult{decisions: []decision{{Kind: kindEvict, Pod: "ml/x", Reason: &reason}}}, true)
	if len(w.Pods) != 1 || w.Pods[0].Name != "y" {
		t.Errorf("after --delete-evicted: %v", w.Pods)
	}
}
