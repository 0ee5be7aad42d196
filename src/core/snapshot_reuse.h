// SnapshotReuse: the previous cycle's snapshot, handed out again when nothing it was made from
// has changed, so a cycle in a quiet cluster starts at once instead of copying every pod (0.5 s
// at 10,000 nodes / 172,000 pods).
//
// "Nothing changed" means the model's generation (every Upsert and Remove advances it) and the
// view's patches (binds in flight, pods backing off) are those of the previous snapshot. The
// view's include filter is not compared: one SnapshotReuse serves one filter (a service's shard).
// Only `now` is set anew. A snapshot still held by someone (a cycle that has not finished) is
// never changed: a fresh one is made instead.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/cluster_model.h"

namespace quotient::core {

class SnapshotReuse {
 public:
  std::shared_ptr<const SnapshotBuild> Take(const ClusterModel& model, Time now,
                                            const ClusterModel::CycleView& view);

  // How many snapshots were made and how many handed out again (for logs and tests).
  uint64_t made() const { return made_; }
  uint64_t reused() const { return reused_; }

 private:
  std::shared_ptr<SnapshotBuild> last_;
  uint64_t generation_ = 0;
  std::map<std::string, std::string> assumed_nodes_;
  std::set<std::string> gated_;
  uint64_t made_ = 0;
  uint64_t reused_ = 0;
};

}  // namespace quotient::core
