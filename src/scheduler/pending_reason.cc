#include "scheduler/pending_reason.h"

#include "fairshare/capacity.h"
#include "fairshare/fair_share.h"
#include "scheduler/action.h"

namespace quotient::scheduler {

std::string NotReadyMessage(const core::Snapshot& snapshot, const core::Job& job) {
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    int32_t alive = 0;
    int32_t gated = 0;
    for (core::Index i : sg.pods) {
      const core::PodStatus s = snapshot.pods[static_cast<size_t>(i)].status;
      if (s == core::PodStatus::kSucceeded || s == core::PodStatus::kFailed ||
          s == core::PodStatus::kReleasing) {
        continue;
      }
      ++alive;
      if (s == core::PodStatus::kGated) ++gated;
    }
    if (alive - gated < sg.min_member) {
      std::string where = job.sub_groups.size() > 1 ? " in subgroup " + sg.name : "";
      return "NotReady: the gang needs " + std::to_string(sg.min_member) + " pods" + where +
             ", currently " + std::to_string(alive) + " exist and " + std::to_string(gated) +
             " of them are gated";
    }
  }
  return "";
}

std::string PendingReason(const Session& session, const core::Job& job, core::Index job_index,
                          const core::Pod& pod) {
  if (!pod.problems.empty()) return "invalid pod: " + pod.problems.front();
  if (!job.problems.empty()) return job.problems.front();
  if (std::string not_ready = NotReadyMessage(session.snapshot(), job); !not_ready.empty()) {
    return not_ready;
  }
  if (const auto& reasons = session.JobReasons(job_index); !reasons.empty()) {
    return reasons.front();
  }
  const fairshare::CapacityVerdict verdict = fairshare::CheckJobOverQueueCapacity(
      session.shares(), job.queue, fairshare::PendingRequestOf(job, session.snapshot()),
      job.preemptible);
  if (!verdict.fits) return verdict.reason + ": " + verdict.message;
  for (const std::string& name : session.config().actions) {
    if (name == "allocate" && IsActionAvailable(name)) {
      return "not placed in this cycle";
    }
  }
  return "not placed: no allocate action ran (this version of Quotient computes fair share "
         "but does not place pods yet); the queue's limit and quota checks pass";
}

}  // namespace quotient::scheduler
