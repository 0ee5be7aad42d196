// Queue capacity checks run before a job is placed (kai-reference §3.3):
//   OverLimit                - for the job's queue and every ancestor, for each resource with a
//                              limit that the job requests: limit < allocated + request fails.
//   NonPreemptibleOverQuota  - for non-preemptible jobs only, for the queue and every ancestor,
//                              for each resource with a bounded quota that the job requests:
//                              deserved < allocated non-preemptible + request fails.
// So limits are hard for everyone, and non-preemptible work never exceeds deserved quota.
#pragma once

#include <string>

#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

struct CapacityVerdict {
  bool fits = true;
  std::string reason;   // "OverLimit" or "NonPreemptibleOverQuota" (KAI's reason constants)
  std::string message;  // for people, with the numbers

  static CapacityVerdict Fits() { return {}; }
};

CapacityVerdict CheckOverLimit(const QueueShares& shares, Index queue, const ShareVector& request);
CapacityVerdict CheckNonPreemptibleOverQuota(const QueueShares& shares, Index queue,
                                             const ShareVector& request, bool preemptible);
// Both, OverLimit first (KAI's IsJobOverQueueCapacity).
CapacityVerdict CheckJobOverQueueCapacity(const QueueShares& shares, Index queue,
                                          const ShareVector& request, bool preemptible);

// "3.5 GPUs", "1.5 cores", "8 GB" - amounts in messages.
std::string FormatAmount(ShareResource r, Quantity amount);

}  // namespace quotient::fairshare
