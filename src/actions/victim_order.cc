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

// Within a queue: lowest priority first, then newest, then the larger key (jobs are stored
// sorted by key, so a larger index is a larger key).
bool VictimBefore(const core::Job& a, Index ia, const core::Job& b, Index ib) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.creation_time != b.creation_time) return a.creation_time > b.creation_time;
  return ia > ib;
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
  std::stable_sort(jobs.begin(), jobs.end(), [&](Index a, Index b) {
    const core::Job& x = session.job(a);
    const core::Job& y = session.job(b);
    if (x.queue != y.queue) return rank.at(x.queue) < rank.at(y.queue);
    return VictimBefore(x, a, y, b);
  });
  return jobs;
}

VictimPool::VictimPool(const framework::Session& session) : session_(session) {
  const std::vector<core::Job>& jobs = session.snapshot().jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].preemptible && jobs[i].queue != core::kNone) {
      by_queue_[jobs[i].queue].push_back(static_cast<Index>(i));
    }
  }
  for (auto& [queue, list] : by_queue_) {
    std::sort(list.begin(), list.end(), [&](Index a, Index b) {
      return VictimBefore(jobs[static_cast<size_t>(a)], a, jobs[static_cast<size_t>(b)], b);
    });
  }
}

void VictimPool::Refresh() {
  active_.assign(session_.snapshot().jobs.size(), false);
  // Queues in the order their first active job comes by key, as VictimJobs meets them (the
  // ranking picks the worst queue repeatedly and keeps the first of a tie in that order).
  std::vector<std::pair<Index, Index>> first_active;  // (job, queue)
  for (const auto& [queue, list] : by_queue_) {
    Index first = core::kNone;
    for (Index job : list) {
      const bool active = HasActiveAllocatedPods(session_, session_.job(job));
      active_[static_cast<size_t>(job)] = active;
      if (active && (first == core::kNone || job < first)) first = job;
    }
    if (first != core::kNone) first_active.emplace_back(first, queue);
  }
  std::sort(first_active.begin(), first_active.end());
  with_active_.clear();
  for (const auto& [job, queue] : first_active) with_active_.push_back(queue);
  ranked_ = false;
  valid_ = true;
}

void VictimPool::Rank() {
  const std::map<Index, size_t> rank = VictimQueueRank(session_, with_active_);
  queue_order_.assign(rank.size(), core::kNone);
  for (const auto& [queue, position] : rank) queue_order_[position] = queue;
  ranked_ = true;
}

std::vector<Index> VictimPool::For(Index preemptor,
                                   const std::function<bool(const core::Job&)>& eligible,
                                   const std::function<bool(Index queue)>& queue_eligible,
                                   size_t limit) {
  if (!valid_) Refresh();
  // Ranking the queues costs a comparison of every pair; a caller taking victims from one queue
  // (preempt) does not need it.
  size_t eligible_queues = 0;
  Index only_queue = core::kNone;
  for (Index queue : with_active_) {
    if (queue_eligible && !queue_eligible(queue)) continue;
    ++eligible_queues;
    only_queue = queue;
  }
  std::vector<Index> single;
  if (eligible_queues == 1) {
    single.push_back(only_queue);
  } else if (!ranked_) {
    Rank();
  }
  std::vector<Index> out;
  for (Index queue : eligible_queues == 1 ? single : queue_order_) {
    if (queue_eligible && !queue_eligible(queue)) continue;
    for (Index job : by_queue_.at(queue)) {
      if (out.size() == limit) return out;
      if (job != preemptor && active_[static_cast<size_t>(job)] && eligible(session_.job(job))) {
        out.push_back(job);
      }
    }
  }
  return out;
}

}  // namespace quotient::actions
