// The fragmentation measure of the `fragmentation` GPU placement strategy (docs/placement.md,
// after FGD, ATC'23): how much of a node's free GPU the work a cluster typically sees could not
// use.
//
// For one request shape m (CPU, memory, GPUs and the share of each) and a node's free room:
//   - m does not fit on the node at all (CPU, memory, or not enough GPUs with room for its
//     share): every free milli-GPU on the node is lost to m;
//   - m fits: the free milli-GPU on devices too full for m's share is lost to m (a whole-GPU
//     shape loses every partly used device's room, a 0.5 shape the slivers under 0.5).
//   A CPU-only shape that fits loses nothing.
//   m may not go on the node at all (its node selector or required node affinity, e.g. a GPU
//   model, excludes it): m loses nothing there. The node's room is not m's to use, so its
//   slivers must not count against placements that m could never have taken. (FGD counts all
//   free GPU as lost instead; measured, that steers pods off the models constrained pods want
//   so hard that it fragments them: 6.2% against 5.3% unallocated on gpuspec20.)
// A node's fragmentation is the sum over the typical shapes of their count times what each
// loses, plus the free GPU that its idle CPU cannot feed (StrandedByCpu) counted once per shape
// seen: a popularity-weighted expectation, in integer milli-GPU units. The strategy places a pod
// where it adds the least fragmentation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace quotient::actions {

struct RequestShape {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t gpus = 0;            // devices; 0 = no GPU
  int64_t gpu_milli_each = 0;  // the share of each device: 1..1000
  // Which nodes the shape may go on: 0 = any; k = the k-th distinct node constraint (selector
  // and required node affinity) seen, up to kMaxReaches (beyond, treated as any).
  int32_t reach = 0;

  auto Key() const { return std::tie(gpus, gpu_milli_each, cpu_milli, memory_bytes, reach); }
  bool operator<(const RequestShape& o) const { return Key() < o.Key(); }
  bool operator==(const RequestShape& o) const { return Key() == o.Key(); }
};

inline constexpr int32_t kMaxReaches = 63;

struct FragmentRoom {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<int64_t> gpu_free_milli;  // per device, 0..1000
  // Bit k set: shapes of reach k may not go on this node (bit 0, "any node", is never set).
  uint64_t unreachable = 0;
};

// The free milli-GPU of `room` that `shape` cannot use.
int64_t LostTo(const FragmentRoom& room, const RequestShape& shape);

// The typical shapes and how often each was seen.
using ShapeCounts = std::vector<std::pair<RequestShape, int64_t>>;

// The free milli-GPU of `room` beyond what its idle CPU can feed at the typical GPU shapes'
// CPU per GPU (their count-weighted mean). The shapes one by one do not see this: a node with 8
// free GPUs and 40 idle cores still fits a 12-core one-GPU pod, but only 3 of them. Without the
// term, CPU-heavy pods drain the CPU of nodes whose GPUs then stay idle (docs/placement.md).
int64_t StrandedByCpu(const FragmentRoom& room, const ShapeCounts& typical);

// Sum of count x LostTo over the shapes, plus the shapes' total count x StrandedByCpu.
int64_t Fragmentation(const FragmentRoom& room, const ShapeCounts& typical);

// Fragmentation of rooms already seen under the current typical shapes. Nodes that are alike
// have the same room (the order of their devices does not matter), so a cluster of few node
// shapes computes each once; the memo is emptied when the typical shapes change.
class FragmentationMemo {
 public:
  int64_t Of(const FragmentRoom& room, const ShapeCounts& typical, uint64_t typical_version);

 private:
  uint64_t version_ = 0;
  bool valid_ = false;
  struct KeyHash {
    size_t operator()(const std::vector<int64_t>& key) const;
  };
  // The unreachable mask, CPU, then the devices' free, sorted. A hash map: only looked up,
  // never iterated, so its order decides nothing.
  std::unordered_map<std::vector<int64_t>, int64_t, KeyHash> known_;
  std::vector<int64_t> key_;  // reused: a lookup allocates nothing
};

// Request shapes seen so far, learned online (pods running when a session opens, and each pod
// the placer is asked to place); the typical ones are the most frequent that together make up
// 95% of what was seen, at most `kMaxTypicalShapes` (the rare remainder changes little and
// costs a scan per node).
class ShapeMix {
 public:
  static constexpr size_t kMaxTypicalShapes = 32;

  void Add(const RequestShape& shape);
  // Recomputed when what was seen has grown by an eighth since the last time: the typical set
  // changes slowly, and a stable set lets node fragmentation be cached.
  const ShapeCounts& Typical();
  // Bumped whenever Typical() changes.
  uint64_t version() const { return version_; }
  int64_t seen() const { return seen_; }

 private:
  std::map<RequestShape, int64_t> counts_;
  int64_t seen_ = 0;
  int64_t seen_at_last_ = 0;
  ShapeCounts typical_;
  uint64_t version_ = 0;
};

}  // namespace quotient::actions
