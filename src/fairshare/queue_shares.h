// QueueShares: each queue's quota, usage and fair share for one cycle (KAI's proportion plugin
// state, kai-reference §3.1).
//
// One QueueShare per snapshot queue, at the same index. Allocated and requested amounts are
// summed up the tree: a department's allocation is the sum of its projects'. Actions change the
// allocation as they place or evict pods (AddAllocated / RemoveAllocated), so a what-if sees its
// own effects; fair shares are fixed when the cycle opens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/objects.h"
#include "core/resources.h"
#include "core/snapshot.h"

namespace quotient::fairshare {

using core::Bound;
using core::Index;
using core::Quantity;
using core::ShareResource;
using core::ShareVector;

struct ResourceShare {
  Bound deserved = Bound::Of(Quantity::Zero());
  Bound limit = Bound::Of(Quantity::Zero());
  Quantity weight_milli;  // over-quota weight x 1000
  // Historical usage normalised to the cluster's capacity, x 1000 (time-based fair share). Zero
  // until a usage source exists; with zero usage the over-quota split is by weight alone.
  Quantity usage_milli;
  Quantity allocated;
  Quantity allocated_non_preemptible;
  Quantity request;
  Quantity fair_share;

  // min(limit, request): what the queue can actually use.
  Quantity Requestable() const { return limit.Cap(request); }
  // KAI's GetAllocatableShare: unlimited deserved -> the limit; else max(deserved, fair share)
  // capped by the limit.
  Bound Allocatable() const;
};

struct QueueShare {
  Index queue = core::kNone;  // index into Snapshot::queues
  std::string name;
  std::string uid;
  core::Time creation_time{};
  Index parent = core::kNone;
  std::vector<Index> children;
  int32_t priority = 100;
  bool usable = true;  // false for queues with problems: no share, no jobs
  core::PerResource<ResourceShare> resources;

  ShareVector FairShare() const;
  ShareVector Allocated() const;
  ShareVector AllocatedNonPreemptible() const;
  ShareVector Requested() const;
  // Deserved with unlimited read as `fallback` for each resource.
  ShareVector DeservedOr(const ShareVector& fallback) const;
};

class QueueShares {
 public:
  QueueShares() = default;
  QueueShares(std::vector<QueueShare> queues, ShareVector total)
      : queues_(std::move(queues)), total_(total), changed_at_(queues_.size(), 0) {}

  const QueueShare& operator[](Index i) const { return queues_[static_cast<size_t>(i)]; }
  QueueShare& operator[](Index i) { return queues_[static_cast<size_t>(i)]; }
  size_t size() const { return queues_.size(); }
  const std::vector<QueueShare>& all() const { return queues_; }
  // Cluster capacity the top-level queues divide.
  const ShareVector& total() const { return total_; }

  // A pod of a job in `queue` was placed / removed: update allocated (and the non-preemptible
  // part) of the queue and all its ancestors.
  void AddAllocated(Index queue, const ShareVector& amount, bool preemptible);
  void RemoveAllocated(Index queue, const ShareVector& amount, bool preemptible);
  // Adds to the request of the queue and its ancestors (negative amounts subtract).
  void AddRequested(Index queue, const ShareVector& amount);

  // A counter that every change of allocation or request above advances. ChangedAt(q) is its
  // value at the last change anywhere in q's subtree, so a cache of something that depends only
  // on the shares inside a subtree (the job order picks among siblings) can tell it is current.
  uint64_t version() const { return version_; }
  uint64_t ChangedAt(Index queue) const { return changed_at_[static_cast<size_t>(queue)]; }

 private:
  // Advances the version and stamps `queue` and its ancestors with it.
  void Touch(Index queue);

  std::vector<QueueShare> queues_;
  ShareVector total_;
  uint64_t version_ = 0;
  std::vector<uint64_t> changed_at_;  // by queue index
};

}  // namespace quotient::fairshare
