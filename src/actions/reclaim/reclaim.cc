#include "actions/reclaim/reclaim.h"

#include <map>

#include "actions/failed_searches.h"
#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/min_runtime.h"
#include "actions/victim_order.h"
#include "actions/victim_queue.h"
#include "actions/victim_solver.h"
#include "fairshare/capacity.h"
#include "fairshare/reclaimable.h"

namespace quotient::actions {
namespace {

using core::Index;
using core::ShareResource;

int64_t Multiplier(const framework::SchedulerConfig& config) {
  const framework::PluginOption* p = config.FindPlugin("proportion");
  if (p == nullptr) return 1000;
  for (const char* key : {"reclaimerUtilizationMultiplier", "relcaimerSaturationMultiplier"}) {
    auto it = p->arguments.find(key);
    if (it == p->arguments.end()) continue;
    Result<core::Quantity> m =
        core::ParseQuantity(it->second, core::Scale::kMilli, core::Rounding::kDown);
    if (m.ok()) return std::max<int64_t>(1000, m->value());
  }
  return 1000;
}

// "<q> uses 3 GPUs with a quota of 2 GPUs, fair-share of 2.5 GPUs and queue priority of 100."
std::string QueueLine(const fairshare::QueueShare& q, ShareResource r) {
  const fairshare::ResourceShare& s = q.resources[r];
  const std::string quota =
      s.deserved.is_unlimited() ? "unlimited" : fairshare::FormatAmount(r, s.deserved.amount());
  return q.name + " uses " + fairshare::FormatAmount(r, s.allocated) + " with a quota of " + quota +
         ", fair-share of " + fairshare::FormatAmount(r, s.fair_share) + " and queue priority of " +
         std::to_string(q.priority) + ".";
}

// The shares as they are between searches, which reclaim's rule and messages compare against.
// Only a commit changes them, so the copy is made again after a commit, when a search first
// needs it: not once per reclaimer (thousands reach a try in a large cluster, few commit).
class SharesBetweenSearches {
 public:
  explicit SharesBetweenSearches(const framework::Session& session) : session_(session) {}
  void Refresh() {
    if (!current_) copy_ = session_.shares();
    current_ = true;
  }
  void Invalidate() { current_ = false; }
  const fairshare::QueueShares& Get() const { return copy_; }

 private:
  const framework::Session& session_;
  fairshare::QueueShares copy_;
  bool current_ = false;
};

void ReclaimFor(framework::Session& session, Placer& placer, VictimPool& pool,
                SharesBetweenSearches& shares, FailedSearches& failed,
                std::map<Index, SmallestFailedJobs>& smallest_failed, const LargestNodes& largest,
                Index job_index, int64_t multiplier) {
  const core::Job& job = session.job(job_index);
  if (WithinPreemptionDelay(session, job_index)) return;
  // An elastic job at its minimum reclaims for its next pod, as KAI's reclaim does for every
  // pending job (FilterNonPending): SelectTasks gives that one pod.
  const TasksToAllocate tasks = SelectTasks(session, job);
  if (tasks.pods.empty()) return;
  const fairshare::ReclaimerInfo reclaimer{job.queue, RequestOf(session, tasks.pods),
                                           job.preemptible};
  if (!fairshare::CanReclaimResources(session.shares(), reclaimer)) return;
  SmallestFailedJobs& smallest = smallest_failed.try_emplace(job.queue, session).first->second;
  if (!smallest.Easier(job_index)) return;
  if (largest.FirstPodLargerThanEveryNode(session, job, tasks.pods) != core::kNone) return;
  std::string search = failed.KeyOf(job_index, tasks.pods);
  if (failed.KnownToFail(search)) {
    smallest.Failed(job_index);
    return;
  }

  SolverSpec spec;
  spec.action = "reclaim";
  spec.preemptor = job_index;
  spec.tasks = tasks.pods;
  // KAI's reclaim victim filter: only queues the proportion rules could take from now.
  VictimQueue victims(
      session, pool, job_index,
      [&](Index queue) {
        return queue != job.queue &&
               fairshare::CanBeReclaimedFrom(session.shares(), reclaimer, queue);
      },
      [](const core::Job&) { return true; },
      [&](Index victim) {
        return !IsProtectedByMinRuntime(session, victim, job.queue, MinRuntimeKind::kReclaim);
      });
  spec.next_victim_unit = [&victims] { return victims.Next(); };
  spec.victims_hold_at_most = PreemptibleHoldingElsewhere(session, job.queue);
  spec.before_first_try = [&shares] { shares.Refresh(); };
  spec.validate = [&](const Scenario& scenario) {
    std::vector<fairshare::VictimBundle> bundles;
    for (const VictimUnit* unit : scenario.victims) {
      fairshare::VictimBundle bundle{session.job(unit->job).queue, {}};
      bool any_evicted = false;
      for (Index pod : unit->pods) {
        // Moved victims keep running elsewhere: they cost their queue nothing, and a unit that
        // moves whole is not judged at all (KAI's getVictimResources gives it no vector).
        if (!scenario.moved_pods.count(pod) && !scenario.kept_pods.count(pod)) {
          bundle.resources += session.QuotaOf(pod, session.state().pod(pod).node);
          any_evicted = true;
        }
      }
      if (any_evicted) bundles.push_back(bundle);
    }
    // A probe places the preemptor's first pods only, and is judged for those (KAI's
    // reclaimableFn builds the reclaimer from the scenario's partial job).
    fairshare::ReclaimerInfo placed = reclaimer;
    if (scenario.tasks.size() != tasks.pods.size()) {
      placed.request = RequestOf(session, scenario.tasks);
    }
    return fairshare::Reclaimable(shares.Get(), placed, bundles, multiplier);
  };
  const ShareResource shown = reclaimer.request[ShareResource::kGpu] > core::Quantity::Zero()
                                  ? ShareResource::kGpu
                                  : ShareResource::kCpu;
  spec.eviction_reason = [&](Index pod) {
    const core::Job& victim = session.job(session.pod(pod).job);
    const fairshare::QueueShares& before = shares.Get();
    const auto [mine, theirs] = fairshare::LeveledQueues(before, job.queue, victim.queue);
    return "Pod " + session.pod(pod).key + " was preempted by workload " + job.key + ". " +
           QueueLine(before[mine], shown) + " " + QueueLine(before[theirs], shown);
  };
  spec.move_reason = [&](Index pod) {
    return "Pod " + session.pod(pod).key + " was preempted by workload " + job.key +
           " and rescheduled on another node";
  };
  if (SolveAndCommit(session, placer, spec)) {
    pool.Invalidate();
    shares.Invalidate();
  } else {
    failed.RecordFailure(std::move(search));
    smallest.Failed(job_index);
  }
}

}  // namespace

void ReclaimAction::Execute(framework::Session& session) {
  JobQueue queue(session, 0);
  std::optional<Index> job = queue.Pop(session);
  // Nothing waits (most cycles of a quiet cluster): no victim pool to build.
  if (!job) return;
  Placer placer(session);
  VictimPool pool(session);
  SharesBetweenSearches shares(session);
  FailedSearches failed(session);
  std::map<Index, SmallestFailedJobs> smallest_failed;  // by queue
  const LargestNodes largest(session);
  const int64_t multiplier = Multiplier(session.config());
  for (; job; job = queue.Pop(session)) {
    ReclaimFor(session, placer, pool, shares, failed, smallest_failed, largest, *job, multiplier);
  }
}

}  // namespace quotient::actions
