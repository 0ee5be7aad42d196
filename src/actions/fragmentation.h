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
// A node's fragmentation is the sum over the typical shapes of their count times what each
// loses: a popularity-weighted expectation, in integer milli-GPU units. The strategy places a
// pod where it adds the least fragmentation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace quotient::actions {

struct RequestShape {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t gpus = 0;            // devices; 0 = no GPU
  int64_t gpu_milli_each = 0;  // the share of each device: 1..1000

  auto Key() const { return std::tie(gpus, gpu_milli_each, cpu_milli, memory_bytes); }
  bool operator<(const RequestShape& o) const { return Key() < o.Key(); }
  bool operator==(const RequestShape& o) const { return Key() == o.Key(); }
};

struct FragmentRoom {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<int64_t> gpu_free_milli;  // per device, 0..1000
};

// The free milli-GPU of `room` that `shape` cannot use.
int64_t LostTo(const FragmentRoom& room, const RequestShape& shape);

// The typical shapes and how often each was seen.
using ShapeCounts = std::vector<std::pair<RequestShape, int64_t>>;

// Sum of count x LostTo over the shapes.
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
  std::map<std::vector<int64_t>, int64_t> known_;  // CPU, then the devices' free, sorted
  std::vector<int64_t> key_;                       // reused: a lookup allocates nothing
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
