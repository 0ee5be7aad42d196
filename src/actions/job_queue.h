// JobQueue: the order in which an action visits pending jobs (KAI's JobsOrderByQueues,
// kai-reference §2.3, §2.5).
//
// Descending from the top-level queues, the next job comes from the child queue that goes first
// by fairshare::CompareQueues, judged with the request of the job that stands for that child;
// within a leaf queue jobs go by higher priority, then below their gang minimum before at it
// before above it, then older, then by name. As in KAI (job_order_by_queue.go), a parent's choice
// among its children is made again only when the next Pop passes through it after a job was
// popped or pushed below the child it chose, and a child stands for its parent with the job of
// the child *it* chose, as that choice stands: a subtree just popped from competes at the levels
// above with its last queue's next job, not with its best one (KAI's getBestJobFromNode peeks
// heaps that are not re-sorted yet). Ties between queues go to the first in the tree's order
// (KAI's go to Go's map order). Jobs that are invalid, not ready, in an unusable queue or
// without pending pods are not candidates.
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

// The requests of jobs that a victim solver's tries leave alone (every job but the preemptor and
// the victims), kept across the tries of one search: by job, worked out when first needed.
using RequestCache = std::vector<std::optional<core::ShareVector>>;

class JobQueue {
 public:
  // `max_jobs_per_queue` 0 = no limit (KAI's queueDepthPerAction).
  JobQueue(const framework::Session& session, int max_jobs_per_queue);
  // The order of a victim solver's virtual allocation (KAI's common.GetJobsToAllocate): every
  // job with a Pending pod in a usable queue, plus `extra` (the preemptor and the victim jobs),
  // with no readiness or depth filter; `virtual_pending` (the scenario's evicted pods) count as
  // pending for their jobs, in the order and in the tasks each job would place. `requests`
  // (optional) keeps the requests of the jobs not in `extra` for the next try.
  JobQueue(const framework::Session& session, const std::vector<core::Index>& extra,
           const VirtuallyPending* virtual_pending, RequestCache* requests = nullptr);
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
    // Of the tasks it would place now; worked out when the job first stands for its queue (most
    // jobs of a victim solver's order never do).
    mutable std::optional<core::ShareVector> request;
    int elastic_state = 0;  // 0 below its gang minimum, 1 at it, 2 above
  };
  // Orders one leaf queue's jobs by JobBefore.
  struct JobOrder {
    const JobQueue* owner;
    bool operator()(core::Index a, core::Index b) const { return owner->JobBefore(a, b); }
  };
  // A queue's order key among its siblings (the queue with its representative job's request),
  // kept while the queue's shares and that job stay the same.
  struct CachedKey {
    bool valid = false;
    uint64_t shares_version = 0;
    core::Index job = core::kNone;
    fairshare::QueueOrderKey key;
  };

  // The members sized for the session, no job in yet.
  JobQueue(const framework::Session& session, const VirtuallyPending* virtual_pending);
  // Files `job` under its queue with its order keys worked out now.
  void Add(const framework::Session& session, core::Index job);
  Entry Describe(const framework::Session& session, core::Index job) const;
  const core::ShareVector& RequestOfJob(const framework::Session& session, core::Index job) const;
  bool JobBefore(core::Index a, core::Index b) const;
  // The job that stands for `queue` when it is compared with its siblings: a leaf queue's first
  // job; for a parent, its top child's (KAI's getBestJobFromNode, which follows each heap's top
  // as it is, re-sorted or not). A parent whose top is unset or has nothing left gets one.
  std::optional<core::Index> Representative(const framework::Session& session,
                                            core::Index queue) const;
  // The queue among `queues` that goes first by the queue order, each judged with its
  // representative job; kNone when none has a job.
  core::Index BestChild(const framework::Session& session,
                        const std::vector<core::Index>& queues) const;
  const fairshare::QueueOrderKey& KeyOf(const framework::Session& session, core::Index queue,
                                        core::Index job) const;
  // Whether any leaf under `queue` (or `queue` itself) has a job filed.
  bool HasJobs(const framework::Session& session, core::Index queue) const;
  // A leaf that had no job left gets one back: it re-enters its parent's choice (see there).
  void Link(const framework::Session& session, core::Index queue);
  // A leaf's last job was popped: its parent (or the top level) chooses a new top now.
  void Unlink(const framework::Session& session, core::Index queue);
  // Marks the queue and its ancestors: their places among their siblings may have changed.
  void MarkPath(const framework::Session& session, core::Index queue);

  const core::Snapshot* snapshot_;
  const VirtuallyPending* virtual_pending_ = nullptr;
  std::vector<core::Index> roots_;
  RequestCache* shared_requests_ = nullptr;  // for the jobs not in `own_request_`
  std::vector<bool> own_request_;            // by job: its request is this queue's own
  std::vector<std::set<core::Index, JobOrder>> candidates_;  // by leaf queue
  std::vector<char> left_out_;        // by queue (victim order only): subtrees not filed, see there
  std::vector<core::Index> leaf_of_;  // by job
  std::vector<Entry> entries_;        // by job
  // KAI's heaps of queues, re-sorted lazily (job_order_by_queue.go): each parent keeps the child
  // at its top (`top_`, kNone = not chosen yet; `root_top_` for the top-level queues) until that
  // child is marked (a job was popped or pushed below it: KAI's needsReorder) and the next Pop
  // passes through the parent. Until then the child stands for its parent with the job of its
  // own top, even where another of its children would now go first.
  mutable std::vector<core::Index> top_;  // by queue
  mutable core::Index root_top_ = core::kNone;
  std::vector<bool> marked_;             // by queue
  mutable std::vector<CachedKey> keys_;  // by queue
};

// KAI's readiness rule: every leaf subgroup has at least its minimum of pods that are alive
// and not gated. Empty when ready, else the NotReady message.
std::string NotReadyMessage(const core::Snapshot& snapshot, const core::Job& job);

}  // namespace quotient::actions
