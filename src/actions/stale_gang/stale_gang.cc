#include "actions/stale_gang/stale_gang.h"

#include "actions/job_tasks.h"

#include "core/snapshot_builder.h"
#include "core/time_text.h"
#include "framework/statement.h"

namespace quotient::actions {
namespace {

using core::Index;
using core::PodStatus;

// Allocated, Binding, Bound or Running (not Pipelined).
bool IsAllocatedHere(PodStatus s) {
  return s == PodStatus::kAllocated || s == PodStatus::kBinding || s == PodStatus::kBound ||
         s == PodStatus::kRunning;
}

// KAI's IsStale: no Succeeded pod, at least one pod holding resources, and some leaf subgroup
// below its minimum of such pods.
bool IsStale(const framework::Session& session, const core::Job& job) {
  bool any_active = false;
  bool below = false;
  for (Index i : job.pods) {
    if (session.state().pod(i).status == PodStatus::kSucceeded) return false;
  }
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    int32_t active = 0;
    for (Index i : sg.pods) active += core::IsActiveUsedStatus(session.state().pod(i).status);
    any_active = any_active || active > 0;
    below = below || active < sg.min_member;
  }
  return any_active && below;
}

}  // namespace

void StaleGangEvictionAction::Execute(framework::Session& session) {
  const std::string stale_key(core::kStaleSinceAnnotation);
  for (size_t i = 0; i < session.snapshot().jobs.size(); ++i) {
    const Index job_index = static_cast<Index>(i);
    const core::Job& job = session.job(job_index);
    if (!IsStale(session, job)) {
      if (job.stale_since && !job.implicit) session.RecordAnnotation({job.key, stale_key, {}});
      continue;
    }
    const core::Time now = session.snapshot().now;
    if (!job.stale_since && !job.implicit) {
      session.RecordAnnotation({job.key, stale_key, core::FormatRfc3339(now)});
    }
    const core::Time since = job.stale_since.value_or(now);
    const std::chrono::seconds grace =
        job.stale_grace_period.value_or(session.config().staleness_grace_period);
    if (grace.count() < 0 || now < since + grace) continue;
    framework::Statement statement(session, "stalegangeviction");
    for (Index pod : job.pods) {
      if (!IsAllocatedHere(session.state().pod(pod).status)) continue;
      statement.Evict(pod, "Workload doesn't meet the minimum required number of pods (" +
                               std::to_string(GangMinimum(job)) +
                               "), evicting remaining pod: " + session.pod(pod).key);
    }
    statement.Commit();
  }
}

}  // namespace quotient::actions
