#include "actions/victim_order.h"

#include <algorithm>
#include <map>

#include "fairshare/queue_order.h"

namespace quotient::actions {
namespace {

using core::Index;

// Queues ranked for losing resources: the one CompareQueues puts last comes first.
std::map<Index, size_t> VictimQueueRank(const framework::Session& session,
                                        std::vector<Index> queues) {
  std::map<Index, size_t> rank;
  while (!queues.empty()) {
    size_t worst = 0;
    for (size_t k = 1; k < queues.size(); ++k) {
      if (fairshare::CompareQueues(session.shares(), {queues[k], {}, {}}, {queues[worst], {}, {}}) >
          0) {
        worst = k;
      }
    }
    rank[queues[worst]] = rank.size();
    queues.erase(queues.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  return rank;
}

}  // namespace

bool HasActiveAllocatedPods(const framework::Session& session, const core::Job& job) {
  for (Index i : job.pods) {
    const core::PodStatus s = session.state().pod(i).status;
    if (s == core::PodStatus::kBinding || s == core::PodStatus::kBound ||
        s == core::PodStatus::kRunning) {
      return true;
    }
  }
  return false;
}

std::vector<Index> VictimJobs(const framework::Session& session, Index preemptor,
                              const std::function<bool(const core::Job&)>& eligible) {
  std::vector<Index> jobs;
  std::vector<Index> queues;
  for (size_t i = 0; i < session.snapshot().jobs.size(); ++i) {
    const core::Job& job = session.snapshot().jobs[i];
    if (static_cast<Index>(i) == preemptor || !job.preemptible || job.queue == core::kNone) {
      continue;
    }
    if (!HasActiveAllocatedPods(session, job) || !eligible(job)) continue;
    jobs.push_back(static_cast<Index>(i));
    if (std::find(queues.begin(), queues.end(), job.queue) == queues.end()) {
      queues.push_back(job.queue);
    }
  }
  const std::map<Index, size_t> rank = VictimQueueRank(session, queues);
  std::sort(jobs.begin(), jobs.end(), [&](Index a, Index b) {
    const core::Job& x = session.job(a);
    const core::Job& y = session.job(b);
    if (rank.at(x.queue) != rank.at(y.queue)) return rank.at(x.queue) < rank.at(y.queue);
    if (x.priority != y.priority) return x.priority < y.priority;
    if (x.creation_time != y.creation_time) return x.creation_time > y.creation_time;
    return x.key > y.key;
  });
  return jobs;
}

std::vector<Index> VictimPool::For(Index preemptor,
                                   const std::function<bool(const core::Job&)>& eligible) {
  if (!valid_) {
    all_ = VictimJobs(session_, core::kNone, [](const core::Job&) { return true; });
    valid_ = true;
  }
  std::vector<Index> out;
  for (Index job : all_) {
    if (job != preemptor && eligible(session_.job(job))) out.push_back(job);
  }
  return out;
}

}  // namespace quotient::actions
