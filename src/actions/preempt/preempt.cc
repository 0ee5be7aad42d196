#include "actions/preempt/preempt.h"

#include <map>

#include "actions/failed_searches.h"
#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/min_runtime.h"
#include "actions/victim_order.h"
#include "actions/victim_queue.h"
#include "actions/victim_solver.h"
#include "fairshare/capacity.h"

namespace quotient::actions {
namespace {

using core::Index;

void PreemptFor(framework::Session& session, Placer& placer, VictimPool& pool,
                FailedSearches& failed, std::map<Index, SmallestFailedJobs>& smallest_failed,
                const LargestNodes& largest, Index job_index) {
  const core::Job& job = session.job(job_index);
  if (WithinPreemptionDelay(session, job_index)) return;
  SmallestFailedJobs& smallest = smallest_failed.try_emplace(job.queue, session).first->second;
  if (!smallest.Easier(job_index)) return;
  // Elastic growth preempts too (KAI preempts for every pending job): SelectTasks gives one pod.
  const TasksToAllocate tasks = SelectTasks(session, job);
  if (tasks.pods.empty()) return;
  if (largest.FirstPodLargerThanEveryNode(session, job, tasks.pods) != core::kNone) return;
  if (!fairshare::CheckNonPreemptibleOverQuota(session.shares(), job.queue,
                                               CapacityCheckRequestOf(session, tasks.pods),
                                               job.preemptible)
           .fits) {
    smallest.Failed(job_index);
    return;
  }
  std::string search = failed.KeyOf(job_index, tasks.pods);
  if (failed.KnownToFail(search)) {
    smallest.Failed(job_index);
    return;
  }
  SolverSpec spec;
  spec.action = "preempt";
  spec.preemptor = job_index;
  spec.tasks = tasks.pods;
  VictimQueue victims(
      session, pool, job_index, [&](Index queue) { return queue == job.queue; },
      [&](const core::Job& v) { return v.priority < job.priority; },
      [&](Index victim) {
        return !IsProtectedByMinRuntime(session, victim, job.queue, MinRuntimeKind::kPreempt);
      });
  spec.next_victim_unit = [&victims] { return victims.Next(); };
  spec.victims_hold_at_most = PreemptibleHolding(session, job.queue);
  spec.eviction_reason = [&](Index pod) {
    return "Pod " + session.pod(pod).key + " was preempted by higher priority workload " + job.key;
  };
  spec.move_reason = [&](Index pod) {
    return "Pod " + session.pod(pod).key + " was preempted by higher priority workload " + job.key +
           " and rescheduled on another node";
  };
  if (SolveAndCommit(session, placer, spec)) {
    pool.Invalidate();
  } else {
    failed.RecordFailure(std::move(search));
    smallest.Failed(job_index);
  }
}

}  // namespace

void PreemptAction::Execute(framework::Session& session) {
  JobQueue queue(session, 0);
  std::optional<Index> job = queue.Pop(session);
  // Nothing waits (most cycles of a quiet cluster): no victim pool to build.
  if (!job) return;
  Placer placer(session);
  VictimPool pool(session);
  FailedSearches failed(session);
  std::map<Index, SmallestFailedJobs> smallest_failed;  // by queue
  const LargestNodes largest(session);
  for (; job; job = queue.Pop(session)) {
    PreemptFor(session, placer, pool, failed, smallest_failed, largest, *job);
  }
}

}  // namespace quotient::actions
