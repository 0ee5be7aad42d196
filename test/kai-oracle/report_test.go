package main

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
)

func TestStatusName(t *testing.T) {
	for s, want := range map[pod_status.PodStatus]string{
		pod_status.Running: "Running", pod_status.Bound: "Running", pod_status.Binding: "Running",
		pod_status.Allocated: "Running", pod_status.Pipelined: "Pipelined", pod_status.Pending: "Pending",
		pod_status.Gated: "Gated", pod_status.Releasing: "Releasing", pod_status.StuckInReleasing: "Releasing",
	} {
		if got := statusName(s, false); got != want {
			t.Errorf("%v: %s, want %s", s, got, want)
		}
	}
	if statusName(pod_status.Unknown, true) != "Running" || statusName(pod_status.Unknown, false) != "Pending" {
		t.Error("Unknown: Running on a node, else Pending")
	}
}

func TestReportGroupRule(t *testing.T) {
	pg := &enginev2alpha2.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ml"}}
	job := &jobState{minMember: 2, podSets: []podSetState{{minAvailable: 2, pods: []string{"ml/a", "ml/b", "ml/c"}}}}
	last := &cycleResult{events: newEventCapture()}
	group := func(statuses ...string) podGroupReport {
		var pods []*podReport
		statusOf := map[string]string{}
		for i, s := range statuses {
			key := "ml/" + string(rune('a'+i))
			pods = append(pods, &podReport{Pod: key, Status: s, Reason: "why " + s})
			statusOf[key] = s
		}
		return reportGroup(pg, job, pods, statusOf, last)
	}
	for _, c := range []struct {
		statuses []string
		want     string
	}{
		{[]string{"Running", "Bound", "Pending"}, "Running"},
		{[]string{"Running", "Pipelined", "Pending"}, "Pipelined"},
		{[]string{"Running", "Pending", "Pending"}, "Pending"},
		{[]string{"Succeeded", "Succeeded", "Failed"}, "Failed"},
		{[]string{"Succeeded", "Succeeded", "Succeeded"}, "Succeeded"},
	} {
		if g := group(c.statuses...); g.Status != c.want {
			t.Errorf("%v: %s, want %s", c.statuses, g.Status, c.want)
		}
	}
	if g := group("Running", "Pending", "Pending"); strings.Join(g.Reasons, "|") != "why Pending" {
		t.Errorf("distinct reasons of pending pods: %q", g.Reasons)
	}
	if g := group(); g.Status != "Pending" || len(g.Reasons) != 1 {
		t.Errorf("a group without pods: %+v", g)
	}
}

func TestSpecMinMember(t *testing.T) {
	pg := &enginev2alpha2.PodGroup{Spec: enginev2alpha2.PodGroupSpec{MinMember: ptr.To(int32(3))}}
	if got := specMinMember(pg); got != 3 {
		t.Errorf("minMember: %d", got)
	}
	pg.Spec.SubGroups = []enginev2alpha2.SubGroup{
		{Name: "root", MinMember: ptr.To(int32(9))},
		{Name: "a", Parent: ptr.To("root"), MinMember: ptr.To(int32(2))},
		{Name: "b", Parent: ptr.To("root"), MinMember: ptr.To(int32(1))},
	}
	if got := specMinMember(pg); got != 3 {
		t.Errorf("sum of leaf subgroups: %d", got)
	}
}

func TestMarshalReportShape(t *testing.T) {
	r := buildReport([]cycleReport{{Index: 0, Decisions: []decision{}}}, &cycleResult{
		events: newEventCapture(), queues: map[string]*queueState{"q": {name: "q", priority: 100,
			deserved: [3]float64{2, -1, -1}, limit: [3]float64{-1, -1, -1},
			fairShare: [3]float64{0.30000000000000004, 1000, 4e9}}},
	}, &runState{world: &objects{}, schedulerName: "quotient", boundByRun: map[string]bool{}})
	text, err := marshalReport(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"pods": []`, `"podGroups": []`, `"deserved": {`, `"gpu": 2,`,
		`"cpu": null`, `"gpu": 0.3,`, `"memory": 4000000000`, `"decisions": []`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report lacks %s:\n%s", want, text)
		}
	}
}
