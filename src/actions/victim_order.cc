#include "actions/victim_order.h"

#include <algorithm>
#include <map>
#include <tuple>

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

bool IsEvictableStatus(core::PodStatus s) {
  return s == core::PodStatus::kBinding || s == core::PodStatus::kBound ||
         s == core::PodStatus::kRunning;
}

bool HasActiveAllocatedPods(const framework::Session& session, const core::Job& job) {
  for (Index i : job.pods) {
    if (IsEvictableStatus(session.state().pod(i).status)) return true;
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
  // Sort keys computed once: (queue rank, priority, -creation, job index by key) — jobs are
  // stored sorted by key, so a larger index is a larger key.
  struct Key {
    size_t queue_rank;
    int32_t priority;
    int64_t minus_creation;
    Index minus_index;
    bool operator<(const Key& o) const {
      return std::tie(queue_rank, priority, minus_creation, minus_index) <
             std::tie(o.queue_rank, o.priority, o.minus_creation, o.minus_index);
    }
  };
  std::vector<std::pair<Key, Index>> keyed;
  keyed.reserve(jobs.size());
  for (Index j : jobs) {
    const core::Job& job = session.job(j);
    keyed.push_back(
        {{rank.at(job.queue), job.priority, -job.creation_time.time_since_epoch().count(), -j}, j});
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 0; k < keyed.size(); ++k) jobs[k] = keyed[k].second;
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
