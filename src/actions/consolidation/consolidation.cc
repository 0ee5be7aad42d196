#include "actions/consolidation/consolidation.h"

#include "actions/failed_searches.h"
#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/victim_order.h"
#include "actions/victim_room.h"
#include "actions/victim_solver.h"

namespace quotient::actions {
namespace {

using core::Index;

bool AnySpread(const framework::SchedulerConfig& config) {
  const framework::PluginOption* p = config.FindPlugin("nodeplacement");
  if (p == nullptr) return false;
  for (const auto& [key, value] : p->arguments) {
    const bool strategy_key =
        key == "gpu" || key == "cpu" || key.ends_with(".gpu") || key.ends_with(".cpu");
    if (strategy_key && value == "spread") return true;
  }
  return false;
}

void ConsolidateFor(framework::Session& session, Placer& placer, VictimPool& pool,
                    SmallestFailedJobs& smallest, const LargestNodes& largest, Index job_index) {
  const core::Job& job = session.job(job_index);
  if (!job.preemptible || IsGangSatisfied(session, job)) return;
  if (!smallest.Easier(job_index)) return;
  const TasksToAllocate tasks = SelectTasks(session, job);
  if (tasks.pods.empty()) return;
  if (largest.FirstPodLargerThanEveryNode(session, job, tasks.pods) != core::kNone) return;
  // KAI's IsEnoughGPUsAllocatableForJob (consolidation.go, attemptToConsolidateForPreemptor):
  // idle and releasing GPUs must cover the job's, or moving pods cannot make room. A job without
  // GPUs passes: moving pods can make room for its CPU and memory.
  const int64_t need = RequestOf(session, tasks.pods)[core::ShareResource::kGpu].value();
  if (solver::FreeRoom(session).gpu_milli < need) {
    smallest.Failed(job_index);
    return;
  }
  SolverSpec spec;
  spec.action = "consolidation";
  spec.preemptor = job_index;
  spec.tasks = tasks.pods;
  spec.all_victims_must_move = true;
  VictimPool::Cursor victims = pool.For(
      job_index, [](const core::Job&) { return true; }, {},
      static_cast<size_t>(session.config().max_consolidation_preemptees));
  spec.next_victim_job = [&victims] { return victims.Next(); };
  spec.units_of = [&](Index victim) { return VictimUnitsOf(session, victim, true); };
  const auto message = [&](Index pod) {
    return "Pod " + session.pod(pod).key +
           " was preempted and rescheduled due to bin packing (resource consolidation) "
           "procedure";
  };
  spec.eviction_reason = message;
  spec.move_reason = message;
  if (SolveAndCommit(session, placer, spec)) {
    pool.Invalidate();
  } else {
    smallest.Failed(job_index);
  }
}

}  // namespace

void ConsolidationAction::Execute(framework::Session& session) {
  // Off under a spread strategy, as KAI's operator writes it (schedulingshard_types.go leaves the
  // action out of a spread shard's configuration); KAI's scheduler would run it if listed
  // (docs/kai-differences.md, "Consolidation is off under a spread placement strategy").
  if (session.config().max_consolidation_preemptees <= 0 || AnySpread(session.config())) return;
  JobQueue queue(session, 0);
  std::optional<Index> job = queue.Pop(session);
  // Nothing waits (most cycles of a quiet cluster): no victim pool to build.
  if (!job) return;
  Placer placer(session);
  VictimPool pool(session);
  SmallestFailedJobs smallest(session);
  const LargestNodes largest(session);
  for (; job; job = queue.Pop(session)) {
    ConsolidateFor(session, placer, pool, smallest, largest, *job);
  }
}

}  // namespace quotient::actions
