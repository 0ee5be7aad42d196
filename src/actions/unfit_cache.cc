#include "actions/unfit_cache.h"

#include "actions/placer.h"
#include "actions/predicates.h"
#include "fairshare/capacity.h"

namespace quotient::actions {

using core::Index;

std::string QueueCapacityReason(const std::string& reason, const std::string& message) {
  return "node(s) would take the queue over capacity (" + reason + ": " + message + ")";
}

const PlacementPolicy& UnfitCache::PolicyFor(const std::string& node_pool) {
  auto it = policies_.find(node_pool);
  if (it == policies_.end()) {
    it = policies_.emplace(node_pool, actions::PolicyFor(session_.config(), node_pool)).first;
  }
  return it->second;
}

void UnfitCache::Forget(Entry& entry, Index node) {
  const int32_t id = entry.verdict[static_cast<size_t>(node)];
  if (id == kFits) {
    --entry.fits;
    --entry.passed;
    return;
  }
  --entry.counts[static_cast<size_t>(id)];
  if (!entry.before_quota[static_cast<size_t>(id)]) --entry.passed;
}

void UnfitCache::Evaluate(Entry& entry, Index pod, Index node) {
  std::string reason = CheckPredicates(session_, pod, node);
  const bool before_quota = !reason.empty();
  if (!before_quota) {
    ++entry.passed;
    NodeFit fit = FitResources(session_, pod, node, PolicyFor(session_.node(node).node_pool),
                               /*with_placement=*/false);
    if (fit.fit != Fit::kNone) {
      ++entry.fits;
      entry.verdict[static_cast<size_t>(node)] = kFits;
      return;
    }
    reason = std::move(fit.reason);
  }
  auto [it, added] = entry.ids.emplace(reason, static_cast<int32_t>(entry.reasons.size()));
  if (added) {
    entry.reasons.push_back(std::move(reason));
    entry.before_quota.push_back(before_quota);
    entry.counts.push_back(0);
  }
  ++entry.counts[static_cast<size_t>(it->second)];
  entry.verdict[static_cast<size_t>(node)] = it->second;
}

const UnfitCache::Entry& UnfitCache::Get(const std::string& shape, Index pod) {
  const std::vector<Index>& log = session_.state().change_log();
  const size_t nodes = session_.state().node_count();
  auto it = entries_.find(shape);
  // Redoing more changed nodes than half the cluster costs more than starting over.
  if (it != entries_.end() && log.size() - it->second.log_position > nodes / 2) {
    entries_.erase(it);
    it = entries_.end();
  }
  if (it == entries_.end()) {
    it = entries_.emplace(shape, Entry{}).first;
    Entry& fresh = it->second;
    fresh.verdict.assign(nodes, kFits);
    for (size_t n = 0; n < nodes; ++n) Evaluate(fresh, pod, static_cast<Index>(n));
    fresh.log_position = log.size();
    return fresh;
  }
  Entry& entry = it->second;
  for (size_t k = entry.log_position; k < log.size(); ++k) {
    Forget(entry, log[k]);
    Evaluate(entry, pod, log[k]);
  }
  entry.log_position = log.size();
  return entry;
}

bool UnfitCache::MightPlace(const Entry& entry, Index pod) const {
  if (entry.fits == 0) return false;
  const core::Job& job = session_.job(session_.pod(pod).job);
  return fairshare::CheckJobOverQueueCapacity(session_.shares(), job.queue,
                                              session_.QuotaOf(pod, core::kNone), job.preemptible)
      .fits;
}

void UnfitCache::Render(const Entry& entry, Index pod, FitErrors& errors) const {
  errors.set_nodes(entry.verdict.size());
  for (size_t id = 0; id < entry.reasons.size(); ++id) {
    if (entry.before_quota[id] && entry.counts[id] > 0)
      errors.Add(entry.reasons[id], entry.counts[id]);
  }
  if (entry.passed == 0) return;
  const core::Job& job = session_.job(session_.pod(pod).job);
  const fairshare::CapacityVerdict capacity = fairshare::CheckJobOverQueueCapacity(
      session_.shares(), job.queue, session_.QuotaOf(pod, core::kNone), job.preemptible);
  if (!capacity.fits) {
    errors.Add(QueueCapacityReason(capacity.reason, capacity.message), entry.passed);
    return;
  }
  for (size_t id = 0; id < entry.reasons.size(); ++id) {
    if (!entry.before_quota[id] && entry.counts[id] > 0) {
      errors.Add(entry.reasons[id], entry.counts[id]);
    }
  }
}

}  // namespace quotient::actions
