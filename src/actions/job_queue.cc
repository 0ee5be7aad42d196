#include "actions/job_queue.h"

#include <algorithm>

#include "actions/job_tasks.h"
#include "fairshare/queue_order.h"

namespace quotient::actions {
namespace {

// 0 below the gang minimum, 1 at it, 2 above it.
int ElasticState(const framework::Session& session, const core::Job& job) {
  int32_t allocated = 0;
  int32_t minimum = 0;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    allocated += ActiveAllocated(session, sg);
    minimum += sg.min_member;
  }
  return allocated < minimum ? 0 : (allocated == minimum ? 1 : 2);
}

}  // namespace

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
      const std::string where = job.sub_groups.size() > 1 ? " in subgroup " + sg.name : "";
      return "NotReady: the gang needs " + std::to_string(sg.min_member) + " pods" + where +
             ", currently " + std::to_string(alive) + " exist and " + std::to_string(gated) +
             " of them are gated";
    }
  }
  return "";
}

JobQueue::JobQueue(const framework::Session& session, int max_jobs_per_queue) {
  const core::Snapshot& s = session.snapshot();
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const core::Job& job = s.jobs[i];
    if (job.queue == core::kNone || !job.problems.empty()) continue;
    if (!session.shares()[job.queue].usable || !HasPendingTask(session, job)) continue;
    if (!NotReadyMessage(s, job).empty()) continue;
    const core::Index index = static_cast<core::Index>(i);
    candidates_[job.queue].push_back(index);
    leaf_of_[index] = job.queue;
    entries_[index] = Describe(session, index);
  }
  if (max_jobs_per_queue > 0) {
    for (auto& [queue, jobs] : candidates_) {
      std::stable_sort(jobs.begin(), jobs.end(),
                       [&](core::Index a, core::Index b) { return JobBefore(session, a, b); });
      if (jobs.size() > static_cast<size_t>(max_jobs_per_queue)) {
        jobs.resize(static_cast<size_t>(max_jobs_per_queue));
      }
    }
  }
}

JobQueue::Entry JobQueue::Describe(const framework::Session& session, core::Index job) const {
  return {RequestOf(session, SelectTasks(session, session.job(job)).pods),
          ElasticState(session, session.job(job))};
}

void JobQueue::Push(const framework::Session& session, core::Index job) {
  candidates_[Leaf(job)].push_back(job);
  entries_[job] = Describe(session, job);
}

bool JobQueue::JobBefore(const framework::Session& session, core::Index a, core::Index b) const {
  const core::Job& x = session.job(a);
  const core::Job& y = session.job(b);
  if (x.priority != y.priority) return x.priority > y.priority;
  const int sx = entries_.at(a).elastic_state;
  const int sy = entries_.at(b).elastic_state;
  if (sx != sy) return sx < sy;
  if (x.creation_time != y.creation_time) return x.creation_time < y.creation_time;
  if (x.uid != y.uid) return x.uid < y.uid;
  return x.key < y.key;
}

std::optional<core::Index> JobQueue::BestIn(const framework::Session& session,
                                            core::Index queue) const {
  const fairshare::QueueShare& q = session.shares()[queue];
  if (!q.usable) return std::nullopt;
  if (!q.children.empty()) return BestAmong(session, q.children);
  auto it = candidates_.find(queue);
  if (it == candidates_.end() || it->second.empty()) return std::nullopt;
  const std::vector<core::Index>& jobs = it->second;
  core::Index best = jobs.front();
  for (core::Index job : jobs) {
    if (JobBefore(session, job, best)) best = job;
  }
  return best;
}

std::optional<core::Index> JobQueue::BestAmong(const framework::Session& session,
                                               const std::vector<core::Index>& queues) const {
  std::optional<core::Index> best_job;
  fairshare::QueueCandidate best;
  for (core::Index queue : queues) {
    std::optional<core::Index> job = BestIn(session, queue);
    if (!job) continue;
    fairshare::QueueCandidate candidate{queue, entries_.at(*job).request, {}};
    if (!best_job || fairshare::CompareQueues(session.shares(), candidate, best) < 0) {
      best_job = job;
      best = candidate;
    }
  }
  return best_job;
}

std::optional<core::Index> JobQueue::Pop(const framework::Session& session) {
  std::optional<core::Index> job = BestAmong(session, session.snapshot().RootQueues());
  if (!job) return std::nullopt;
  std::vector<core::Index>& jobs = candidates_[Leaf(*job)];
  jobs.erase(std::find(jobs.begin(), jobs.end(), *job));
  return job;
}

}  // namespace quotient::actions
