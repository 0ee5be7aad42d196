// Which running jobs an action may take from, and in what order (kai-reference §2.4, §3.5;
// kai-subtleties §21, §23): preemptible jobs with pods holding resources, never the preemptor;
// ordered by queue — the queue that goes last in the fair-share queue order loses first — then,
// within a queue, lowest priority first, then elastic jobs above their minimum, at it, below it
// (KAI's elastic job order, reversed), then newest, then by uid and name (last first).
// VictimQueue (victim_queue.h) draws from it in KAI's order across queues and jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "actions/victim_solver.h"
#include "framework/session.h"

namespace quotient::actions {

// Victim jobs (by the rules above) for many preemptors in one action, produced as the solver reads
// them. Jobs are grouped by queue in their within-queue order once. After a commit (Invalidate)
// only the jobs the commit evicted from are looked at again, and the queues are ranked lazily — the
// worst first, one more only when a reader gets past the last — so a reader that stops early (most
// do) costs little however many queues and jobs there are.
class VictimPool {
 public:
  explicit VictimPool(const framework::Session& session);

  // Victim jobs in victim order, passing `eligible`, from the queues passing `queue_eligible`
  // (all when empty), at most `limit` of them. Valid until the pool is invalidated.
  class Cursor {
   public:
    core::Index Next();  // kNone after the last

   private:
    friend class VictimPool;
    VictimPool* pool_ = nullptr;
    core::Index preemptor_ = core::kNone;
    std::function<bool(const core::Job&)> eligible_;
    std::function<bool(core::Index)> queue_eligible_;
    core::Index single_queue_ = core::kNone;  // ForQueue: only this queue, no ranking
    size_t limit_ = SIZE_MAX;
    size_t produced_ = 0;
    size_t rank_position_ = 0;
    const std::vector<core::Index>* jobs_ = nullptr;  // the current queue's jobs
    size_t job_position_ = 0;
    bool done_ = false;
  };
  Cursor For(core::Index preemptor, std::function<bool(const core::Job&)> eligible,
             std::function<bool(core::Index queue)> queue_eligible = {}, size_t limit = SIZE_MAX);
  // Victims from one queue only (preempt): the queues' ranking does not matter.
  Cursor ForQueue(core::Index preemptor, core::Index queue,
                  std::function<bool(const core::Job&)> eligible);
  void Invalidate() { valid_ = false; }

  // For a VictimQueue: the queues with jobs that have evictable pods, by index; a queue's
  // preemptible jobs in victim order within the queue (lower priority, then elastic jobs above
  // their minimum, at it, below it, then newer, then larger uid and key first); whether a job
  // has evictable pods. Valid until the pool is invalidated.
  std::vector<core::Index> QueuesWithVictims();
  const std::vector<core::Index>* JobsOf(core::Index queue) const;
  bool Active(core::Index job);

 private:
  void Refresh();
  // Sorts a queue's jobs in victim order, as the session stands now.
  void SortQueue(std::vector<core::Index>& jobs) const;
  // The queue at `position` of the ranking (kNone past the end), ranking more as needed.
  core::Index QueueAt(size_t position);

  const framework::Session& session_;
  std::map<core::Index, std::vector<core::Index>> by_queue_;  // preemptible jobs, victim order
  std::map<core::Index, std::vector<core::Index>> by_key_;    // the same jobs, by key
  std::vector<bool> active_;                                  // by job: has evictable pods
  std::map<core::Index, core::Index> first_active_;  // queue -> its active job first by key
  size_t decisions_seen_ = 0;  // session decisions already reflected in active_
  bool valid_ = false;
  // The ranking: queues with active jobs, worst first, computed as far as readers went; the
  // rest wait in `unranked_` in the order of their first active job by key,
  // which decides among queues the comparison cannot order.
  std::vector<core::Index> ranked_;
  std::vector<core::Index> unranked_;
};

// What the preemptible jobs of `queue` (its subtree) hold now, GPU and CPU: at most what victims
// from there can free.
SolverSpec::Holding PreemptibleHolding(const framework::Session& session, core::Index queue);
// The same over every queue but `except` (the top-level queues' sums less `except`'s).
SolverSpec::Holding PreemptibleHoldingElsewhere(const framework::Session& session,
                                                core::Index except);

// Pods a victim can lose: Running, Bound or Binding. Pods allocated earlier in the same cycle
// are not victims (their bind is already decided; evicting them would only undo it).
bool IsEvictableStatus(core::PodStatus s);

// Whether the job has pods that can be evicted: Binding, Bound or Running (not pods allocated
// earlier in this cycle).
bool HasActiveAllocatedPods(const framework::Session& session, const core::Job& job);

}  // namespace quotient::actions
