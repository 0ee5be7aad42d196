// JobQueue: the order in which an action visits pending jobs (KAI's JobsOrderByQueues,
// kai-reference §2.3, §2.5).
//
// Descending from the top-level queues, the next job comes from the child queue that goes first
// by fairshare::CompareQueues, judged with the request of that child's own best job; within a
// leaf queue jobs go by higher priority, then below their gang minimum before at it before above
// it, then older, then by name. The order is recomputed at every Pop, so each placement (which
// changes queue allocations) is seen by the next choice. Jobs that are invalid, not ready, in an
// unusable queue or without pending pods are not candidates.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "actions/job_tasks.h"
#include "fairshare/queue_order.h"
#include "framework/session.h"

namespace quotient::actions {

class JobQueue {
 public:
  // `max_jobs_per_queue` 0 = no limit (KAI's queueDepthPerAction).
  JobQueue(const framework::Session& session, int max_jobs_per_queue);
  // The order of a victim solver's virtual allocation (KAI's common.GetJobsToAllocate): every
  // job with a Pending pod in a usable queue, plus `extra` (the preemptor and the victim jobs),
  // with no readiness or depth filter; `virtual_pending` (the scenario's evicted pods) count as
  // pending for their jobs, in the order and in the tasks each job would place.
  JobQueue(const framework::Session& session, const std::vector<core::Index>& extra,
           const VirtuallyPending* virtual_pending);
  JobQueue(const JobQueue&) = delete;  // the job order refers to its owner
  JobQueue& operator=(const JobQueue&) = delete;

  // The next job, removed from the queue; nullopt when none is left.
  std::optional<core::Index> Pop(const framework::Session& session);
  // Puts a job back (elastic growth: it competes again after each pod), with its cached order
  // keys recomputed.
  void Push(const framework::Session& session, core::Index job);

 private:
  // What ordering needs to know about a job, cached because only the popped job changes while
  // an allocate action runs; Push refreshes it.
  struct Entry {
    core::ShareVector request;  // of the tasks it would place now
    int elastic_state = 0;      // 0 below its gang minimum, 1 at it, 2 above
  };
  // Orders one leaf queue's jobs by JobBefore.
  struct JobOrder {
    const JobQueue* owner;
    bool operator()(core::Index a, core::Index b) const { return owner->JobBefore(a, b); }
  };
  // The job a queue's subtree gives next, and the shares version it was worked out at. Only
  // the subtree's own shares and jobs decide it, so it stays current until one of them changes
  // (QueueShares::ChangedAt, or a Pop/Push below the queue): a pop then recomputes one path of
  // the tree instead of every queue and job.
  // Its order key among its siblings (the queue with that job's request) is kept with it: it
  // changes exactly when the best does.
  struct SubtreeBest {
    bool valid = false;
    uint64_t shares_version = 0;
    std::optional<core::Index> job;
    fairshare::QueueOrderKey key;
  };

  Entry Describe(const framework::Session& session, core::Index job) const;
  bool JobBefore(core::Index a, core::Index b) const;
  // The job `queue`'s subtree would give next, with the queue's order key.
  const SubtreeBest& BestIn(const framework::Session& session, core::Index queue) const;
  // The job that the queue going first among `queues` would give next.
  std::optional<core::Index> BestAmong(const framework::Session& session,
                                       const std::vector<core::Index>& queues) const;
  // Forgets the cached best of `queue` and its ancestors.
  void Invalidate(const framework::Session& session, core::Index queue);

  const core::Snapshot* snapshot_;
  const VirtuallyPending* virtual_pending_ = nullptr;
  std::vector<core::Index> roots_;
  std::map<core::Index, std::set<core::Index, JobOrder>> candidates_;  // leaf queue -> jobs
  std::vector<core::Index> leaf_of_;                                   // by job
  std::vector<Entry> entries_;                                         // by job
  mutable std::vector<SubtreeBest> best_;                              // by queue
};

// KAI's readiness rule: every leaf subgroup has at least its minimum of pods that are alive
// and not gated. Empty when ready, else the NotReady message.
std::string NotReadyMessage(const core::Snapshot& snapshot, const core::Job& job);

}  // namespace quotient::actions
