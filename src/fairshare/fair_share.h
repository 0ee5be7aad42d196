// ComputeFairShare: builds each queue's QueueShare from a snapshot and divides the cluster
// top-down through the queue tree (kai-reference §3.1–§3.2).
//
// Allocated = accepted resources of Allocated|Bound|Binding|Running pods; request = allocated +
// requests of Pending pods; both summed up the tree. Pods that can never be scheduled (bad input,
// a job with problems) do not ask for a share. Capacity = core::ClusterCapacity. Top-level queues
// divide the capacity; each queue's children divide that queue's fair share.
#pragma once

#include "core/snapshot.h"
#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

struct FairShareOptions {
  int64_t k_value_milli = 1000;  // proportion plugin argument kValue, x 1000
};

QueueShares ComputeFairShare(const core::Snapshot& snapshot, const FairShareOptions& options);

// The share vector of a job's pods that still wait (Pending), as counted in its queue's request.
ShareVector PendingRequestOf(const core::Job& job, const core::Snapshot& snapshot);
// The same as the queue capacity checks size it (core::CapacityCheckQuotaOf).
ShareVector PendingCapacityCheckRequestOf(const core::Job& job, const core::Snapshot& snapshot);

}  // namespace quotient::fairshare
