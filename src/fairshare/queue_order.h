// CompareQueues: which queue's job goes first (KAI's proportion queue order, kai-reference §2.5).
// The first rule that separates the two queues decides:
//   1. a queue not over its fair share (over = allocated > fair share in every resource) first;
//   2. a "starved" queue first: allocated + job request <= deserved in every resource
//      (an unlimited deserved always holds);
//   3. higher queue priority first;
//   4. a queue that would use a resource it has no allocatable share of goes last;
//   5. smaller dominant resource share counting the job (and not counting victims) first:
//      DRS = max over resources of allocated / allocatable, allocatable = max(deserved, fair
//      share) capped by the limit (an unlimited one reads as the cluster total; a zero one gives
//      allocated x 1000 as a penalty);
//   6. smaller dominant resource share without the job first;
//   7. a queue whose allocatable share is smaller (<= in all, < in one) first;
//   8. older queue first, then name (so the order is total and deterministic).
#pragma once

#include "common/int128.h"
#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

struct QueueCandidate {
  Index queue = core::kNone;
  ShareVector job_request;        // what the queue's best job would add now
  ShareVector victims_allocated;  // victim mode: allocation the job's victims would release
};

// < 0: `l` goes first; > 0: `r` goes first; 0 only when l and r are the same queue.
int CompareQueues(const QueueShares& shares, const QueueCandidate& l, const QueueCandidate& r);

// What rules 1-6 read of one candidate, worked out once: a caller comparing a candidate with many
// others (the job order picks among siblings at every pop) keeps the key while the queue's shares
// and the job stay the same. CompareQueueKeys(OrderKeyOf(l), OrderKeyOf(r)) == CompareQueues(l, r).
struct QueueOrderKey {
  struct Ratio {
    Int128 num = 0;
    Int128 den = 1;
  };
  Index queue = core::kNone;
  bool over = false;
  bool starved = false;
  int32_t priority = 0;
  bool uses_resource_without_share = false;
  Ratio share_with_job;  // rule 5's dominant resource share
  Ratio share;           // rule 6's
};
QueueOrderKey OrderKeyOf(const QueueShares& shares, const QueueCandidate& candidate);
int CompareQueueKeys(const QueueShares& shares, const QueueOrderKey& l, const QueueOrderKey& r);

}  // namespace quotient::fairshare
