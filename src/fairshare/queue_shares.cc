#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

Bound ResourceShare::Allocatable() const {
  if (deserved.is_unlimited()) return limit;
  const Quantity allocatable = core::Max(deserved.amount(), fair_share);
  return Bound::Of(limit.Cap(allocatable));
}

namespace {

template <typename Field>
ShareVector Collect(const QueueShare& q, Field field) {
  ShareVector v;
  for (ShareResource r : core::kShareResources) v[r] = field(q.resources[r]);
  return v;
}

}  // namespace

ShareVector QueueShare::FairShare() const {
  return Collect(*this, [](const ResourceShare& s) { return s.fair_share; });
}
ShareVector QueueShare::Allocated() const {
  return Collect(*this, [](const ResourceShare& s) { return s.allocated; });
}
ShareVector QueueShare::AllocatedNonPreemptible() const {
  return Collect(*this, [](const ResourceShare& s) { return s.allocated_non_preemptible; });
}
ShareVector QueueShare::Requested() const {
  return Collect(*this, [](const ResourceShare& s) { return s.request; });
}
ShareVector QueueShare::DeservedOr(const ShareVector& fallback) const {
  ShareVector v;
  for (ShareResource r : core::kShareResources) {
    v[r] = resources[r].deserved.amount_or(fallback[r]);
  }
  return v;
}

void QueueShares::Touch(Index queue) {
  ++version_;
  if (changed_at_.size() != queues_.size()) changed_at_.resize(queues_.size(), 0);
  for (Index at = queue; at != core::kNone; at = (*this)[at].parent) {
    changed_at_[static_cast<size_t>(at)] = version_;
  }
}

void QueueShares::AddAllocated(Index queue, const ShareVector& amount, bool preemptible) {
  Touch(queue);
  for (Index at = queue; at != core::kNone; at = (*this)[at].parent) {
    for (ShareResource r : core::kShareResources) {
      ResourceShare& s = (*this)[at].resources[r];
      s.allocated += amount[r];
      if (!preemptible) s.allocated_non_preemptible += amount[r];
    }
  }
}

void QueueShares::RemoveAllocated(Index queue, const ShareVector& amount, bool preemptible) {
  Touch(queue);
  for (Index at = queue; at != core::kNone; at = (*this)[at].parent) {
    for (ShareResource r : core::kShareResources) {
      ResourceShare& s = (*this)[at].resources[r];
      s.allocated -= amount[r];
      if (!preemptible) s.allocated_non_preemptible -= amount[r];
    }
  }
}

void QueueShares::AddRequested(Index queue, const ShareVector& amount) {
  Touch(queue);
  for (Index at = queue; at != core::kNone; at = (*this)[at].parent) {
    for (ShareResource r : core::kShareResources) (*this)[at].resources[r].request += amount[r];
  }
}

}  // namespace quotient::fairshare
