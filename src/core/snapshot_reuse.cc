#include "core/snapshot_reuse.h"

namespace quotient::core {

std::shared_ptr<const SnapshotBuild> SnapshotReuse::Take(const ClusterModel& model, Time now,
                                                         const ClusterModel::CycleView& view) {
  const bool unchanged = last_ != nullptr && generation_ == model.generation() &&
                         assumed_nodes_ == view.assumed_nodes && gated_ == view.gated;
  // use_count 1: only this cache holds it, so no cycle is reading it while `now` changes.
  if (unchanged && last_.use_count() == 1) {
    last_->snapshot.now = now;
    ++reused_;
    return last_;
  }
  // Let go of the old one first: two full snapshots at once would double the peak.
  last_.reset();
  last_ = std::make_shared<SnapshotBuild>(model.Snapshot(now, view));
  generation_ = model.generation();
  assumed_nodes_ = view.assumed_nodes;
  gated_ = view.gated;
  ++made_;
  return last_;
}

}  // namespace quotient::core
