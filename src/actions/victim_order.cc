#include "actions/victim_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "actions/job_tasks.h"
#include "fairshare/queue_order.h"

namespace quotient::actions {
namespace {

using core::Index;

// KAI's elastic minAvailableState of a job as it stands, as a victim rank: 0 above its minimum
// (a leaf subgroup above, none below), 1 exactly at it, 2 below it.
int ElasticRank(const framework::Session& session, const core::Job& job) {
  bool exactly = true;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    const int32_t held = ActiveAllocated(session, sg);
    if (held < sg.min_member) return 2;
    if (held > sg.min_member) exactly = false;
  }
  return exactly ? 1 : 0;
}

}  // namespace

void VictimPool::SortQueue(std::vector<Index>& list) const {
  const std::vector<core::Job>& jobs = session_.snapshot().jobs;
  std::vector<std::pair<int, Index>> keyed;
  for (Index j : list) keyed.emplace_back(ElasticRank(session_, jobs[static_cast<size_t>(j)]), j);
  // Lowest priority, then elastic rank, then newest, then the larger uid and key (jobs are
  // indexed by key, so a larger index is a larger key).
  std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    const core::Job& a = jobs[static_cast<size_t>(x.second)];
    const core::Job& b = jobs[static_cast<size_t>(y.second)];
    if (a.priority != b.priority) return a.priority < b.priority;
    if (x.first != y.first) return x.first < y.first;
    if (a.creation_time != b.creation_time) return a.creation_time > b.creation_time;
    if (a.uid != b.uid) return a.uid > b.uid;
    return x.second > y.second;
  });
  for (size_t k = 0; k < keyed.size(); ++k) list[k] = keyed[k].second;
}

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

VictimPool::VictimPool(const framework::Session& session) : session_(session) {
  const std::vector<core::Job>& jobs = session.snapshot().jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].preemptible && jobs[i].queue != core::kNone) {
      by_queue_[jobs[i].queue].push_back(static_cast<Index>(i));
      by_key_[jobs[i].queue].push_back(static_cast<Index>(i));  // indices ascend: key order
    }
  }
  // Sorted in victim order by the first Refresh, which looks at every queue.
}

std::vector<Index> VictimPool::QueuesWithVictims() {
  if (!valid_) Refresh();
  std::vector<Index> out;
  for (const auto& [queue, job] : first_active_) out.push_back(queue);
  return out;
}

const std::vector<Index>* VictimPool::JobsOf(Index queue) const {
  auto it = by_queue_.find(queue);
  return it == by_queue_.end() ? nullptr : &it->second;
}

void VictimPool::Refresh() {
  std::set<Index> changed_queues;
  if (active_.empty()) {
    active_.assign(session_.snapshot().jobs.size(), false);
    for (const auto& [queue, list] : by_queue_) {
      for (Index job : list) {
        active_[static_cast<size_t>(job)] = HasActiveAllocatedPods(session_, session_.job(job));
      }
      changed_queues.insert(queue);
    }
  } else {
    // Only evictions take evictable pods away (a pod bound in this cycle is not a victim), and
    // every committed change is a decision.
    const std::vector<framework::Decision>& decisions = session_.decisions();
    for (size_t k = decisions_seen_; k < decisions.size(); ++k) {
      if (decisions[k].kind != framework::DecisionKind::kEvict) continue;
      const Index pod = session_.snapshot().FindPod(decisions[k].pod);
      if (pod == core::kNone) continue;
      const Index job = session_.pod(pod).job;
      if (job == core::kNone || !by_key_.count(session_.job(job).queue)) continue;
      active_[static_cast<size_t>(job)] = HasActiveAllocatedPods(session_, session_.job(job));
      changed_queues.insert(session_.job(job).queue);
    }
  }
  decisions_seen_ = session_.decisions().size();
  // An eviction changes the victim job's elastic rank: its queue is ordered again.
  for (Index queue : changed_queues) SortQueue(by_queue_.at(queue));
  for (Index queue : changed_queues) {
    Index first = core::kNone;
    for (Index job : by_key_.at(queue)) {
      if (active_[static_cast<size_t>(job)]) {
        first = job;
        break;
      }
    }
    if (first == core::kNone) {
      first_active_.erase(queue);
    } else {
      first_active_[queue] = first;
    }
  }
  // Shares changed with the commit: the ranking starts over, the queues in the order of their
  // first active job by key.
  std::vector<std::pair<Index, Index>> order;  // (first active job, queue)
  for (const auto& [queue, job] : first_active_) order.emplace_back(job, queue);
  std::sort(order.begin(), order.end());
  unranked_.clear();
  for (const auto& [job, queue] : order) unranked_.push_back(queue);
  ranked_.clear();
  valid_ = true;
}

Index VictimPool::QueueAt(size_t position) {
  // A selection, one step at a time: the queue CompareQueues puts last
  // among those not ranked yet (the first of them in a tie) loses next.
  while (ranked_.size() <= position && !unranked_.empty()) {
    size_t worst = 0;
    for (size_t k = 1; k < unranked_.size(); ++k) {
      if (fairshare::CompareQueues(session_.shares(), {unranked_[k], {}, {}},
                                   {unranked_[worst], {}, {}}) > 0) {
        worst = k;
      }
    }
    ranked_.push_back(unranked_[worst]);
    unranked_.erase(unranked_.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  return position < ranked_.size() ? ranked_[position] : core::kNone;
}

bool VictimPool::Active(Index job) { return active_[static_cast<size_t>(job)]; }

VictimPool::Cursor VictimPool::For(Index preemptor, std::function<bool(const core::Job&)> eligible,
                                   std::function<bool(Index queue)> queue_eligible, size_t limit) {
  if (!valid_) Refresh();
  Cursor c;
  c.pool_ = this;
  c.preemptor_ = preemptor;
  c.eligible_ = std::move(eligible);
  c.queue_eligible_ = std::move(queue_eligible);
  c.limit_ = limit;
  return c;
}

VictimPool::Cursor VictimPool::ForQueue(Index preemptor, Index queue,
                                        std::function<bool(const core::Job&)> eligible) {
  Cursor c = For(preemptor, std::move(eligible));
  c.single_queue_ = queue;
  return c;
}

Index VictimPool::Cursor::Next() {
  while (!done_ && produced_ < limit_) {
    if (jobs_ == nullptr) {
      Index queue = core::kNone;
      if (single_queue_ != core::kNone) {
        if (rank_position_++ == 0 && pool_->first_active_.count(single_queue_)) {
          queue = single_queue_;
        }
      } else {
        queue = pool_->QueueAt(rank_position_++);
      }
      if (queue == core::kNone) {
        done_ = true;
        break;
      }
      if (queue_eligible_ && !queue_eligible_(queue)) continue;
      jobs_ = &pool_->by_queue_.at(queue);
      job_position_ = 0;
    }
    while (job_position_ < jobs_->size()) {
      const Index job = (*jobs_)[job_position_++];
      if (job != preemptor_ && pool_->Active(job) && eligible_(pool_->session_.job(job))) {
        ++produced_;
        return job;
      }
    }
    jobs_ = nullptr;
  }
  return core::kNone;
}

SolverSpec::Holding PreemptibleHolding(const framework::Session& session, Index queue) {
  const fairshare::QueueShare& q = session.shares()[queue];
  const auto preemptible = [&q](core::ShareResource r) {
    return (q.resources[r].allocated - q.resources[r].allocated_non_preemptible).value();
  };
  return {preemptible(core::ShareResource::kGpu), preemptible(core::ShareResource::kCpu)};
}

SolverSpec::Holding PreemptibleHoldingElsewhere(const framework::Session& session, Index except) {
  SolverSpec::Holding all;
  for (Index root : session.snapshot().RootQueues()) {
    const SolverSpec::Holding h = PreemptibleHolding(session, root);
    all.gpu_milli += h.gpu_milli;
    all.cpu_milli += h.cpu_milli;
  }
  const SolverSpec::Holding mine = PreemptibleHolding(session, except);
  return {all.gpu_milli - mine.gpu_milli, all.cpu_milli - mine.cpu_milli};
}

}  // namespace quotient::actions
