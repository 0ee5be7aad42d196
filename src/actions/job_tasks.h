// Which of a job's pods to place now, and in what order (kai-reference §2.5, §4.3).
//
// Leaf subgroups are ordered: below their minimum first, then by allocated/minimum (lower
// first), then by name. If some are below their minimum, each of those gets exactly
// minimum - allocated pending pods (all or nothing); otherwise one pod of the first subgroup
// that still has pending pods (elastic growth, one pod per turn). Pods within a subgroup go in
// task order: Kubeflow master/launcher first, Ray head first, higher kai.scheduler/task-priority
// first (labelled before unlabelled), older first, then by name.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/session.h"

namespace quotient::actions {

using core::Index;

// Pods of the subgroup holding resources now: Allocated, Pipelined, Binding, Bound, Running.
int32_t ActiveAllocated(const framework::Session& session, const core::SubGroup& sub_group);

// Whether every leaf subgroup has at least its minimum of active allocated pods.
bool IsGangSatisfied(const framework::Session& session, const core::Job& job);

// The pods the gang needs: the sum of its leaf subgroups' minimums.
int32_t GangMinimum(const core::Job& job);

// KAI's IsActiveAllocatedStatus: Allocated, Pipelined, Binding, Bound or Running.
bool IsActiveAllocated(core::PodStatus s);

// Pods a victim solver evicted in the statement it is trying (KAI's virtual Releasing status,
// PodInfo.ShouldAllocate with isRealAllocation false): while it places the preemptor and the
// victims again, they count as pending for their own job. Null: none.
using VirtuallyPending = std::set<Index>;

// Whether the job has a valid pod that is still Pending in the session (or virtually pending).
bool HasPendingTask(const framework::Session& session, const core::Job& job,
                    const VirtuallyPending* virtual_pending = nullptr);

// Pending pods (valid, status Pending, or Releasing and virtually pending) of the subgroup, in
// task order.
std::vector<Index> PendingTasks(const framework::Session& session, const core::SubGroup& sub_group,
                                const VirtuallyPending* virtual_pending = nullptr);

struct TasksToAllocate {
  std::vector<Index> pods;  // in placement order
  int32_t required = 0;     // how many must all be placed (the gang part); 0 = elastic growth
  std::string shortfall;    // when a subgroup lacks pending pods to reach its minimum
};

// What allocate would place of the job now (KAI's GetTasksToAllocate): a subgroup below its
// minimum gives the pods it is missing, else one pod of elastic growth. With `virtual_pending`
// (a victim solver's virtual allocation, KAI's isRealAllocation false) a subgroup with fewer
// pending pods than it is missing gives those it has (KAI's getTasksFromQueue takes what the
// queue holds); otherwise such a job gives none, with `shortfall` saying why (allocate only
// reaches ready jobs).
TasksToAllocate SelectTasks(const framework::Session& session, const core::Job& job,
                            const VirtuallyPending* virtual_pending = nullptr);

// The job's request for queue ordering and reclaimer checks: the sum over `pods`.
core::ShareVector RequestOf(const framework::Session& session, const std::vector<Index>& pods);
// The same sum as the queue capacity checks (over limit, non-preemptible over quota) see it:
// a gpu-memory pod sized by the largest GPU memory (core::CapacityCheckQuotaOf).
core::ShareVector CapacityCheckRequestOf(const framework::Session& session,
                                         const std::vector<Index>& pods);

// KAI's preemption delay (spec.preemptionDelay): the time before which the job may not evict
// others, counted from the later of its creation and its own last eviction; nullopt for none.
std::optional<core::Time> PreemptionDelayEnd(const core::Job& job);

// Whether consolidation, reclaim and preempt must leave the job alone for now (within its
// preemption delay at the session's time); if so, the job's reasons say until when, once:
// "PreemptionDelayNotElapsed: Workload is within its preemption delay window (10m0s) and may not
// trigger evictions before 2026-03-01T12:10:00Z" (KAI's wording).
bool WithinPreemptionDelay(framework::Session& session, Index job);

// KAI's victim-invariant pre-predicate (MaxNodePoolResources in
// pkg/scheduler/k8s_internal/predicates/max_node_resources.go, run by reclaim, preempt and
// consolidation through VictimInvariantPrePredicateFailureForTasks): a pod asking for more GPUs
// (whole devices, or a fraction times its devices), CPU, memory or another resource than the
// largest allocatable of any node of its pool can never be placed, whatever is evicted. Those
// actions pass such a job over without a search and without remembering it as a failed search,
// so jobs like it are still searched for.
class LargestNodes {
 public:
  explicit LargestNodes(const framework::Session& session);
  // The first pod of `pods` no node of the job's pool could hold: kNone if none.
  Index FirstPodLargerThanEveryNode(const framework::Session& session, const core::Job& job,
                                    const std::vector<Index>& pods) const;

 private:
  std::map<std::string, core::ResourceVector, std::less<>> by_pool_;  // component-wise max
};

// Task order: true when `a` goes before `b`.
bool TaskBefore(const core::Pod& a, const core::Pod& b);

}  // namespace quotient::actions
