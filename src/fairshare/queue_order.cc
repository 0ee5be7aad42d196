#include "fairshare/queue_order.h"

#include "common/int128.h"

namespace quotient::fairshare {
namespace {

using quotient::Int128;
using Ratio = QueueOrderKey::Ratio;

// Multiplier KAI applies to the allocation of a resource the queue has no allocatable share of.
constexpr int64_t kNoShareDrfMultiplier = 1000;

int CompareRatio(const Ratio& a, const Ratio& b) {
  const Int128 lhs = a.num * b.den;
  const Int128 rhs = b.num * a.den;
  return lhs < rhs ? -1 : (lhs > rhs ? 1 : 0);
}

// allocated in KAI's units x 1000: GPUs (our milli value), millicores x 1000, bytes x 1000.
Int128 Penalty(ShareResource r, Quantity allocated) {
  const Int128 a = allocated.value();
  return r == ShareResource::kGpu ? a : a * kNoShareDrfMultiplier;
}

Ratio DominantShare(const QueueShare& q, const ShareVector& allocated, const ShareVector& total) {
  Ratio best;
  for (ShareResource r : core::kShareResources) {
    const Quantity allocatable = q.resources[r].Allocatable().amount_or(total[r]);
    // A negative allocatable (a negative quota or limit, kept as KAI keeps it) gives KAI a
    // negative share, which never beats the others: keep the denominator positive.
    Ratio v = allocatable.value() == 0 ? Ratio{Penalty(r, allocated[r]), 1}
              : allocatable.value() > 0
                  ? Ratio{allocated[r].value(), allocatable.value()}
                  : Ratio{-Int128{allocated[r].value()}, -Int128{allocatable.value()}};
    if (CompareRatio(v, best) > 0) best = v;
  }
  return best;
}

bool OverUtilized(const QueueShare& q) { return core::AllLess(q.FairShare(), q.Allocated()); }

bool Starved(const QueueShare& q, const ShareVector& with_job) {
  for (ShareResource r : core::kShareResources) {
    if (!q.resources[r].deserved.Admits(with_job[r])) return false;
  }
  return true;
}

bool UsesResourceWithoutShare(const QueueShare& q, const ShareVector& with_job) {
  for (ShareResource r : core::kShareResources) {
    const Bound allocatable = q.resources[r].Allocatable();
    if (!allocatable.is_unlimited() && allocatable.amount().is_zero() &&
        with_job[r] > Quantity::Zero()) {
      return true;
    }
  }
  return false;
}

// a <= b everywhere and a < b somewhere, unlimited being the largest.
bool SmallerAllocatable(const QueueShare& a, const QueueShare& b) {
  bool strictly = false;
  for (ShareResource r : core::kShareResources) {
    const Bound x = a.resources[r].Allocatable();
    const Bound y = b.resources[r].Allocatable();
    if (x == y) continue;
    const bool x_less = !x.is_unlimited() && (y.is_unlimited() || x.amount() < y.amount());
    if (!x_less) return false;
    strictly = true;
  }
  return strictly;
}

// -1 when only `l_true` holds, +1 when only `r_true` holds.
int Prefer(bool l_true, bool r_true) { return l_true == r_true ? 0 : (l_true ? -1 : 1); }

}  // namespace

QueueOrderKey OrderKeyOf(const QueueShares& shares, const QueueCandidate& candidate) {
  const QueueShare& q = shares[candidate.queue];
  const ShareVector with_job = q.Allocated() + candidate.job_request;
  QueueOrderKey key;
  key.queue = candidate.queue;
  key.over = OverUtilized(q);
  key.starved = Starved(q, with_job);
  key.priority = q.priority;
  key.uses_resource_without_share = UsesResourceWithoutShare(q, with_job);
  key.share_with_job = DominantShare(q, with_job - candidate.victims_allocated, shares.total());
  key.share = DominantShare(q, q.Allocated(), shares.total());
  return key;
}

int CompareQueueKeys(const QueueShares& shares, const QueueOrderKey& l, const QueueOrderKey& r) {
  if (l.queue == r.queue) return 0;
  if (int c = Prefer(!l.over, !r.over)) return c;
  if (int c = Prefer(l.starved, r.starved)) return c;
  if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
  if (int c = Prefer(!l.uses_resource_without_share, !r.uses_resource_without_share)) return c;
  if (int c = CompareRatio(l.share_with_job, r.share_with_job)) return c;
  if (int c = CompareRatio(l.share, r.share)) return c;
  const QueueShare& lq = shares[l.queue];
  const QueueShare& rq = shares[r.queue];
  if (int c = Prefer(SmallerAllocatable(lq, rq), SmallerAllocatable(rq, lq))) return c;
  if (lq.creation_time != rq.creation_time) return lq.creation_time < rq.creation_time ? -1 : 1;
  return lq.name < rq.name ? -1 : 1;
}

int CompareQueues(const QueueShares& shares, const QueueCandidate& l, const QueueCandidate& r) {
  if (l.queue == r.queue) return 0;
  return CompareQueueKeys(shares, OrderKeyOf(shares, l), OrderKeyOf(shares, r));
}

}  // namespace quotient::fairshare
