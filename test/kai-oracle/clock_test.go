package main

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
)

func TestShiftedCopyMovesEveryTimestampAlike(t *testing.T) {
	created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	deleted := metav1.NewTime(created.Add(time.Hour))
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: metav1.NewTime(created),
		DeletionTimestamp: &deleted}}
	unset := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unset"}}
	pg := &enginev2alpha2.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "g", Annotations: map[string]string{
		"kai.scheduler/last-start-timestamp":     "2026-03-01T11:59:00Z",
		"kai.scheduler/stale-podgroup-timestamp": "not a time",
		"other":                                  "2026-03-01T11:59:00Z",
	}}}
	w := &objects{Pods: []*corev1.Pod{p, unset}, PodGroups: []*enginev2alpha2.PodGroup{pg}}
	shift := 7*time.Hour + 123456789*time.Nanosecond
	out := shiftedCopy(w, shift)

	if got := out.Pods[0].CreationTimestamp.Time; !got.Equal(created.Add(shift)) {
		t.Errorf("creation %v", got)
	}
	if got := out.Pods[0].DeletionTimestamp.Time; !got.Equal(deleted.Add(shift)) {
		t.Errorf("deletion %v", got)
	}
	if !out.Pods[1].CreationTimestamp.IsZero() {
		t.Error("an unset timestamp stays unset")
	}
	// KAI parses the annotation with time.RFC3339: the fraction must survive.
	start, err := time.Parse(time.RFC3339, out.PodGroups[0].Annotations["kai.scheduler/last-start-timestamp"])
	if err != nil || !start.Equal(time.Date(2026, 3, 1, 11, 59, 0, 0, time.UTC).Add(shift)) {
		t.Errorf("last start %v (%v)", start, err)
	}
	if out.PodGroups[0].Annotations["kai.scheduler/stale-podgroup-timestamp"] != "not a time" ||
		out.PodGroups[0].Annotations["other"] != "2026-03-01T11:59:00Z" {
		t.Errorf("annotations %v", out.PodGroups[0].Annotations)
	}
	// The world itself is not touched.
	if !p.CreationTimestamp.Time.Equal(created) || pg.Annotations["kai.scheduler/last-start-timestamp"] != "2026-03-01T11:59:00Z" {
		t.Error("shiftedCopy changed its input")
	}
}

func TestUnshiftedAnnotation(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	shift := 5*time.Hour + 987654321*time.Nanosecond
	kaiNow := now.Add(shift).Add(3 * time.Millisecond) // KAI's clock, a few ms into the cycle
	if got := unshiftedAnnotation(kaiNow, shift); got != "2026-03-01T12:00:00Z" {
		t.Errorf("got %s", got)
	}
}
