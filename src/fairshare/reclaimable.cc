#include "fairshare/reclaimable.h"

#include <map>

#include "common/int128.h"

namespace quotient::fairshare {
namespace {

std::vector<Index> PathFromRoot(const QueueShares& shares, Index queue) {
  std::vector<Index> path;
  for (Index at = queue; at != core::kNone; at = shares[at].parent) path.insert(path.begin(), at);
  return path;
}

// a <= bound in every resource, an unlimited bound holding everything.
bool WithinBounds(const ShareVector& a, const core::PerResource<Bound>& bound) {
  for (ShareResource r : core::kShareResources) {
    if (!bound[r].Admits(a[r])) return false;
  }
  return true;
}

core::PerResource<Bound> Allocatable(const QueueShare& q) {
  core::PerResource<Bound> out;
  for (ShareResource r : core::kShareResources) out[r] = q.resources[r].Allocatable();
  return out;
}

core::PerResource<Bound> Deserved(const QueueShare& q) {
  core::PerResource<Bound> out;
  for (ShareResource r : core::kShareResources) out[r] = q.resources[r].deserved;
  return out;
}

// (allocated) / (fair share) > (other allocated) / (other fair share) x ..., exactly.
bool SaturationRejects(Quantity allocated, Quantity fair, Quantity sibling_remaining,
                       Quantity sibling_fair, int64_t multiplier_milli) {
  const bool over = fair.is_zero() ? allocated > Quantity::Zero() : allocated > fair;
  if (!over || sibling_fair <= Quantity::Zero()) return false;
  if (fair.is_zero()) return true;  // infinite saturation
  // allocated/fair * m/1000 >= sibling_remaining/sibling_fair
  const Int128 lhs =
      static_cast<Int128>(allocated.value()) * multiplier_milli * sibling_fair.value();
  const Int128 rhs = static_cast<Int128>(sibling_remaining.value()) * fair.value() * 1000;
  return lhs >= rhs;
}

}  // namespace

std::pair<Index, Index> LeveledQueues(const QueueShares& shares, Index reclaimer, Index victim) {
  const std::vector<Index> a = PathFromRoot(shares, reclaimer);
  const std::vector<Index> b = PathFromRoot(shares, victim);
  Index ra = core::kNone;
  Index rb = core::kNone;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    ra = a[i];
    rb = b[i];
    if (ra != rb) break;
  }
  return {ra, rb};
}

bool CanReclaimResources(const QueueShares& shares, const ReclaimerInfo& reclaimer) {
  const QueueShare& q = shares[reclaimer.queue];
  if (!core::AllLessEqual(q.Allocated() + reclaimer.request, q.FairShare())) return false;
  if (reclaimer.preemptible) return true;
  return WithinBounds(q.AllocatedNonPreemptible() + reclaimer.request, Deserved(q));
}

bool CanBeReclaimedFrom(const QueueShares& shares, const ReclaimerInfo& reclaimer,
                        Index victim_queue) {
  const auto [mine, theirs] = LeveledQueues(shares, reclaimer.queue, victim_queue);
  if (mine == core::kNone || theirs == core::kNone) return true;
  const QueueShare& rq = shares[mine];
  const QueueShare& vq = shares[theirs];
  if (!WithinBounds(rq.Allocated() + reclaimer.request, Deserved(rq))) {
    return !WithinBounds(vq.Allocated(), Allocatable(vq));
  }
  // canBeDeservedQuotaReclaimCandidate: over its quota in a requested resource, or under it in
  // none of them.
  bool under_somewhere = false;
  for (ShareResource r : core::kShareResources) {
    if (reclaimer.request[r] <= Quantity::Zero()) continue;
    const ResourceShare& s = vq.resources[r];
    if (s.deserved.is_unlimited()) continue;
    if (s.allocated > s.deserved.amount()) return true;
    if (s.allocated < s.deserved.amount()) under_somewhere = true;
  }
  return !under_somewhere;
}

bool Reclaimable(const QueueShares& shares, const ReclaimerInfo& reclaimer,
                 const std::vector<VictimBundle>& bundles, int64_t multiplier_milli) {
  std::map<Index, ShareVector> remaining;  // queues that lost resources
  // Per such queue, the resources its victims (those of its subtree) held: KAI's "involved
  // resources", compared in the saturation rule besides the reclaimer's.
  std::map<Index, core::PerResource<bool>> involved;
  const auto remaining_of = [&](Index q) -> ShareVector& {
    auto it = remaining.find(q);
    if (it == remaining.end()) it = remaining.emplace(q, shares[q].Allocated()).first;
    return it->second;
  };
  // Every victim moves: no queue loses anything, and KAI approves whatever the reclaimer's
  // standing (KAI #1565: 376 GPUs of in-quota work restarted for 48 GPUs of an over-quota
  // queue). Moving someone else's work is only for a reclaimer within its deserved quota.
  if (bundles.empty()) {
    const QueueShare& q = shares[reclaimer.queue];
    if (!WithinBounds(q.Allocated() + reclaimer.request, Deserved(q))) return false;
  }
  for (const VictimBundle& bundle : bundles) {
    const auto [reclaimer_side, victim_side] = LeveledQueues(shares, reclaimer.queue, bundle.queue);
    const QueueShare& rq = shares[reclaimer_side];
    const QueueShare& vq = shares[victim_side];
    const ShareVector& left = remaining_of(victim_side);
    const bool maintain_fair_share = !WithinBounds(left, Allocatable(vq));
    const bool guarantee_deserved =
        WithinBounds(rq.Allocated() + reclaimer.request, Deserved(rq)) &&
        !WithinBounds(left, Deserved(vq));
    if (!maintain_fair_share && !guarantee_deserved) return false;
    for (Index at = bundle.queue; at != core::kNone; at = shares[at].parent) {
      remaining_of(at) -= bundle.resources;
      for (ShareResource r : core::kShareResources) {
        if (bundle.resources[r] > Quantity::Zero()) involved[at][r] = true;
      }
    }
  }
  const int64_t multiplier = multiplier_milli < 1000 ? 1000 : multiplier_milli;
  std::vector<Index> roots;
  for (size_t i = 0; i < shares.size(); ++i) {
    if (shares[static_cast<Index>(i)].parent == core::kNone) roots.push_back(static_cast<Index>(i));
  }
  for (Index at = reclaimer.queue; at != core::kNone; at = shares[at].parent) {
    const QueueShare& q = shares[at];
    auto own = remaining.find(at);
    const ShareVector with_job =
        (own == remaining.end() ? q.Allocated() : own->second) + reclaimer.request;
    const std::vector<Index>& siblings =
        q.parent == core::kNone ? roots : shares[q.parent].children;
    for (Index sibling : siblings) {
      auto lost = remaining.find(sibling);
      if (sibling == at || lost == remaining.end()) continue;
      for (ShareResource r : core::kShareResources) {
        if (reclaimer.request[r] <= Quantity::Zero() && !involved[sibling][r]) continue;
        if (SaturationRejects(with_job[r], q.resources[r].fair_share, lost->second[r],
                              shares[sibling].resources[r].fair_share, multiplier)) {
          return false;
        }
      }
    }
    if (!reclaimer.preemptible &&
        !WithinBounds(q.AllocatedNonPreemptible() + reclaimer.request, Deserved(q))) {
      return false;
    }
  }
  return true;
}

}  // namespace quotient::fairshare
