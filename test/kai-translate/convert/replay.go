package convert

import (
	"fmt"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions/allocate"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions/consolidation"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions/preempt"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions/reclaim"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/actions/stalegangeviction"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/common_info"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/api/pod_status"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/framework"
	"github.com/kai-scheduler/KAI-scheduler/pkg/scheduler/test_utils"
)

// podHistory is what became of a pod over the rounds of an integration run.
type podHistory struct {
	boundInRun bool                 // bound (Binding) in some round
	final      pod_status.PodStatus // its status after the last round's actions
	finalNode  string
}

// replayRounds runs an integration case the way its KAI test does (rounds of all five actions on
// a session BuildSession builds from the case, the case's tasks then moved on as the test harness
// does: bound tasks run, evicted tasks come back pending unless their job is being deleted,
// pipelined tasks go back to pending) and reports each pod's history. The report's `Bound` means
// "bound by this run" in any cycle, so a pod KAI expects running at the end is `Bound` here when
// it was bound during the run, `Running` when it ran throughout.
//
// It runs after the objects are written: it moves the case's tasks on.
func replayRounds(t *testing.T, topo test_utils.TestTopologyBasic, rounds int) (hist map[string]*podHistory, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replaying the rounds panicked: %v", r)
		}
	}()
	controller := gomock.NewController(t)
	defer controller.Finish()
	actions := []framework.Action{allocate.New(), consolidation.New(), reclaim.New(), preempt.New(), stalegangeviction.New()}
	hist = map[string]*podHistory{}
	for round := 0; round < rounds; round++ {
		ssn := test_utils.BuildSession(topo, controller)
		for _, a := range actions {
			a.Execute(ssn)
		}
		for _, j := range topo.Jobs {
			job := ssn.ClusterInfo.PodGroupInfos[common_info.PodGroupID(j.Name)]
			if job == nil {
				return nil, fmt.Errorf("job %s missing from round %d", j.Name, round)
			}
			all := job.GetAllPodsMap()
			for i, task := range j.Tasks {
				name := fmt.Sprintf("%s-%d", j.Name, i)
				ti := all[common_info.PodID(name)]
				if ti == nil {
					return nil, fmt.Errorf("task %s missing from round %d", name, round)
				}
				h := hist[name]
				if h == nil {
					h = &podHistory{}
					hist[name] = h
				}
				h.final, h.finalNode = ti.Status, ti.NodeName
				switch ti.Status {
				case pod_status.Releasing:
					if j.DeleteJobInTest {
						task.NodeName, task.GPUGroups, task.State = ti.NodeName, ti.GPUGroups, pod_status.Releasing
					} else {
						task.NodeName, task.State = "", pod_status.Pending
					}
				case pod_status.Pipelined:
					task.NodeName, task.State = "", pod_status.Pending
				case pod_status.Binding:
					h.boundInRun = true
					task.State, task.NodeName, task.GPUGroups = pod_status.Running, ti.NodeName, ti.GPUGroups
				default:
					task.State, task.NodeName, task.GPUGroups = ti.Status, ti.NodeName, ti.GPUGroups
				}
			}
		}
	}
	return hist, nil
}
