#include "fairshare/fair_share.h"

#include "core/accounting.h"
#include "fairshare/division.h"

namespace quotient::fairshare {
namespace {

QueueShare ShareOf(const core::Queue& q, Index index) {
  QueueShare s;
  s.queue = index;
  s.name = q.name;
  s.uid = q.uid;
  s.creation_time = q.creation_time;
  s.parent = q.parent;
  s.children = q.children;
  s.priority = q.priority;
  s.usable = q.problems.empty();
  for (ShareResource r : core::kShareResources) {
    s.resources[r].deserved = q.resources[r].quota;
    s.resources[r].limit = q.resources[r].limit;
    s.resources[r].weight_milli = q.resources[r].over_quota_weight_milli;
  }
  return s;
}

const core::Node* NodeOf(const core::Pod& pod, const core::Snapshot& snapshot) {
  return pod.node == core::kNone ? nullptr : &snapshot.nodes[static_cast<size_t>(pod.node)];
}

void AccountJobs(const core::Snapshot& snapshot, QueueShares& shares) {
  for (const core::Job& job : snapshot.jobs) {
    if (job.queue == core::kNone || !shares[job.queue].usable) continue;
    for (Index i : job.pods) {
      const core::Pod& pod = snapshot.pods[static_cast<size_t>(i)];
      if (core::IsAllocatedStatus(pod.status)) {
        const ShareVector q = core::QuotaOf(pod, NodeOf(pod, snapshot), snapshot);
        shares.AddAllocated(job.queue, q, job.preemptible);
        shares.AddRequested(job.queue, q);
      }
    }
    shares.AddRequested(job.queue, PendingRequestOf(job, snapshot));
  }
}

void Divide(const ShareVector& total, const std::vector<Index>& sibling_indices,
            QueueShares& shares, const FairShareOptions& options) {
  std::vector<QueueShare*> siblings;
  for (Index i : sibling_indices) {
    if (shares[i].usable) siblings.push_back(&shares[i]);
  }
  if (siblings.empty()) return;
  for (ShareResource r : core::kShareResources) {
    DivideAmongSiblings(total[r], r, siblings, options.k_value_milli);
  }
  for (QueueShare* q : siblings) Divide(q->FairShare(), q->children, shares, options);
}

}  // namespace

namespace {

template <typename Quota>
ShareVector SumOfPending(const core::Job& job, const core::Snapshot& snapshot, Quota quota) {
  ShareVector sum;
  if (!job.problems.empty()) return sum;
  for (Index i : job.pods) {
    const core::Pod& pod = snapshot.pods[static_cast<size_t>(i)];
    if (pod.status == core::PodStatus::kPending && pod.problems.empty()) sum += quota(pod);
  }
  return sum;
}

}  // namespace

ShareVector PendingRequestOf(const core::Job& job, const core::Snapshot& snapshot) {
  return SumOfPending(job, snapshot,
                      [&](const core::Pod& pod) { return core::QuotaOf(pod, nullptr, snapshot); });
}

ShareVector PendingCapacityCheckRequestOf(const core::Job& job, const core::Snapshot& snapshot) {
  return SumOfPending(job, snapshot, [&](const core::Pod& pod) {
    return core::CapacityCheckQuotaOf(pod, snapshot);
  });
}

QueueShares ComputeFairShare(const core::Snapshot& snapshot, const FairShareOptions& options) {
  std::vector<QueueShare> queues;
  queues.reserve(snapshot.queues.size());
  for (size_t i = 0; i < snapshot.queues.size(); ++i) {
    queues.push_back(ShareOf(snapshot.queues[i], static_cast<Index>(i)));
  }
  QueueShares shares(std::move(queues), core::ClusterCapacity(snapshot));
  AccountJobs(snapshot, shares);
  Divide(shares.total(), snapshot.RootQueues(), shares, options);
  return shares;
}

}  // namespace quotient::fairshare
