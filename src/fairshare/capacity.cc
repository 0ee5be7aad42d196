#include "fairshare/capacity.h"

namespace quotient::fairshare {

std::string FormatAmount(ShareResource r, Quantity amount) {
  switch (r) {
    case ShareResource::kGpu:
      return core::FormatDecimal(amount.value(), 3) + " GPUs";
    case ShareResource::kCpu:
      return core::FormatDecimal(amount.value(), 3) + " cores";
    case ShareResource::kMemory:
      return core::FormatDecimal(amount.value(), 9) + " GB";
  }
  return core::FormatDecimal(amount.value(), 0);
}

CapacityVerdict CheckOverLimit(const QueueShares& shares, Index queue, const ShareVector& request) {
  for (Index at = queue; at != core::kNone; at = shares[at].parent) {
    const QueueShare& q = shares[at];
    for (ShareResource r : core::kShareResources) {
      const ResourceShare& s = q.resources[r];
      if (s.limit.is_unlimited() || request[r] <= Quantity::Zero()) continue;
      if (s.limit.amount() < s.allocated + request[r]) {
        const std::string name(core::ShareResourceName(r));
        return {false, "OverLimit",
                "queue " + q.name + " has reached its limit of " + name + ": limit is " +
                    FormatAmount(r, s.limit.amount()) + ", currently " +
                    FormatAmount(r, s.allocated) + " allocated and the workload requests " +
                    FormatAmount(r, request[r])};
      }
    }
  }
  return CapacityVerdict::Fits();
}

CapacityVerdict CheckNonPreemptibleOverQuota(const QueueShares& shares, Index queue,
                                             const ShareVector& request, bool preemptible) {
  if (preemptible) return CapacityVerdict::Fits();
  for (Index at = queue; at != core::kNone; at = shares[at].parent) {
    const QueueShare& q = shares[at];
    for (ShareResource r : core::kShareResources) {
      const ResourceShare& s = q.resources[r];
      if (s.deserved.is_unlimited() || request[r] <= Quantity::Zero()) continue;
      if (s.deserved.amount() < s.allocated_non_preemptible + request[r]) {
        const std::string name(core::ShareResourceName(r));
        return {false, "NonPreemptibleOverQuota",
                "non-preemptible workload is over quota in queue " + q.name + ": deserved " + name +
                    " is " + FormatAmount(r, s.deserved.amount()) + ", " +
                    FormatAmount(r, s.allocated_non_preemptible) +
                    " already allocated to non-preemptible workloads and the workload requests " +
                    FormatAmount(r, request[r]) + "; use a preemptible workload to go over quota"};
      }
    }
  }
  return CapacityVerdict::Fits();
}

CapacityVerdict CheckJobOverQueueCapacity(const QueueShares& shares, Index queue,
                                          const ShareVector& request, bool preemptible) {
  CapacityVerdict v = CheckOverLimit(shares, queue, request);
  if (!v.fits) return v;
  return CheckNonPreemptibleOverQuota(shares, queue, request, preemptible);
}

}  // namespace quotient::fairshare
