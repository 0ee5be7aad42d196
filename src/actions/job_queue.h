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

#include <map>
#include <optional>
#include <vector>

#include "framework/session.h"

namespace quotient::actions {

class JobQueue {
 public:
  // `max_jobs_per_queue` 0 = no limit (KAI's queueDepthPerAction).
  JobQueue(const framework::Session& session, int max_jobs_per_queue);

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
  Entry Describe(const framework::Session& session, core::Index job) const;
  bool JobBefore(const framework::Session& session, core::Index a, core::Index b) const;
  core::Index Leaf(core::Index job) const { return leaf_of_.at(job); }
  // The job `queue`'s subtree would give next.
  std::optional<core::Index> BestIn(const framework::Session& session, core::Index queue) const;
  // The job that the queue going first among `queues` would give next.
  std::optional<core::Index> BestAmong(const framework::Session& session,
                                       const std::vector<core::Index>& queues) const;

  std::map<core::Index, std::vector<core::Index>> candidates_;  // leaf queue -> jobs
  std::map<core::Index, core::Index> leaf_of_;
  std::map<core::Index, Entry> entries_;
};

// KAI's readiness rule: every leaf subgroup has at least its minimum of pods that are alive
// and not gated. Empty when ready, else the NotReady message.
std::string NotReadyMessage(const core::Snapshot& snapshot, const core::Job& job);

}  // namespace quotient::actions
