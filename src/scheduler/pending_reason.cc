#include "scheduler/pending_reason.h"

#include <algorithm>
#include "actions/job_queue.h"

#include "fairshare/capacity.h"
#include "fairshare/fair_share.h"

namespace quotient::scheduler {

std::string PendingReason(const framework::Session& session, const core::Job& job,
                          core::Index job_index, const core::Pod& pod) {
  if (!pod.problems.empty()) return "invalid pod: " + pod.problems.front();
  if (!job.problems.empty()) return job.problems.front();
  if (std::string not_ready = actions::NotReadyMessage(session.snapshot(), job);
      !not_ready.empty()) {
    return not_ready;
  }
  if (const auto& reasons = session.JobReasons(job_index); !reasons.empty()) {
    return reasons.front();
  }
  const fairshare::CapacityVerdict verdict = fairshare::CheckJobOverQueueCapacity(
      session.shares(), job.queue,
      fairshare::PendingCapacityCheckRequestOf(job, session.snapshot()), job.preemptible);
  if (!verdict.fits) return verdict.reason + ": " + verdict.message;
  const auto& names = session.config().actions;
  if (std::find(names.begin(), names.end(), "allocate") == names.end()) {
    return "not placed: allocate is not among this run's actions; the queue's limit and quota "
           "checks pass";
  }
  return "not placed in this cycle";
}

}  // namespace quotient::scheduler
