package main

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonconstants "github.com/kai-scheduler/KAI-scheduler/pkg/common/constants"
)

// KAI reads the wall clock (time.Now) wherever it measures a duration: the min-runtime plugin,
// stale gang eviction, last-start and last-eviction timestamps, preemption delays, the
// stuck-in-releasing threshold. It cannot be handed a clock, so --now is emulated by moving the
// world instead: each cycle, every timestamp of the input is moved by shift = (wall clock at the
// start of the cycle) - (--now), so every duration KAI computes is the one quotient computes at
// --now (plus the few milliseconds the cycle itself takes). Timestamps KAI writes are moved back
// by the same shift before they enter the world of the next cycle.

// timeAnnotations are the PodGroup annotations that hold times KAI compares with the clock.
var timeAnnotations = []string{
	commonconstants.StalePodgroupTimeStamp,
	commonconstants.LastStartTimeStamp,
	commonconstants.LastEvictionTimeStamp,
}

// cycleShift is the shift for a cycle starting now; zero without --now (KAI runs at real time).
func cycleShift(now *time.Time) time.Duration {
	if now == nil {
		return 0
	}
	return time.Since(*now)
}

func shiftTime(t metav1.Time, shift time.Duration) metav1.Time {
	if t.IsZero() {
		return t // "unset" stays unset: the oldest time there is, either way
	}
	return metav1.NewTime(t.Add(shift))
}

func shiftTimePtr(t *metav1.Time, shift time.Duration) *metav1.Time {
	if t == nil {
		return nil
	}
	s := shiftTime(*t, shift)
	return &s
}

func shiftMeta(m *metav1.ObjectMeta, shift time.Duration) {
	m.CreationTimestamp = shiftTime(m.CreationTimestamp, shift)
	m.DeletionTimestamp = shiftTimePtr(m.DeletionTimestamp, shift)
}

// shiftedCopy is a deep copy of the world as KAI is to see it this cycle: every timestamp moved
// by shift. Time annotations keep sub-second precision (RFC3339 with fractions, which KAI's
// time.Parse(time.RFC3339, ...) reads), so all timestamps move by exactly the same amount.
func shiftedCopy(w *objects, shift time.Duration) *objects {
	out := &objects{}
	for _, n := range w.Nodes {
		n = n.DeepCopy()
		shiftMeta(&n.ObjectMeta, shift)
		out.Nodes = append(out.Nodes, n)
	}
	for _, p := range w.Pods {
		p = p.DeepCopy()
		shiftMeta(&p.ObjectMeta, shift)
		p.Status.StartTime = shiftTimePtr(p.Status.StartTime, shift)
		out.Pods = append(out.Pods, p)
	}
	for _, q := range w.Queues {
		q = q.DeepCopy()
		shiftMeta(&q.ObjectMeta, shift)
		out.Queues = append(out.Queues, q)
	}
	for _, pg := range w.PodGroups {
		pg = pg.DeepCopy()
		shiftMeta(&pg.ObjectMeta, shift)
		if shift != 0 {
			for _, key := range timeAnnotations {
				value, ok := pg.Annotations[key]
				if !ok {
					continue
				}
				if t, err := time.Parse(time.RFC3339, value); err == nil {
					pg.Annotations[key] = t.Add(shift).UTC().Format(time.RFC3339Nano)
				}
			}
		}
		out.PodGroups = append(out.PodGroups, pg)
	}
	for _, pc := range w.PriorityClasses {
		pc = pc.DeepCopy()
		shiftMeta(&pc.ObjectMeta, shift)
		out.PriorityClasses = append(out.PriorityClasses, pc)
	}
	return out
}

// unshiftedAnnotation is the annotation value for a time KAI holds, in the world's frame: moved
// back by the cycle's shift and written as KAI's status updater writes it (RFC3339, UTC).
func unshiftedAnnotation(t time.Time, shift time.Duration) string {
	return t.Add(-shift).UTC().Format(time.RFC3339)
}
