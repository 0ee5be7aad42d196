// NodeOrderIndex: the nodes of one node pool kept in the order a placement strategy prefers
// them, updated as statements change the cluster state, so the placer can visit the likely
// winners first and stop early instead of scoring every node (docs/design/performance.md).
//
// The order is nodeplacement's term alone (kai-reference §7.1): for `kGpu` the node's devices
// no pod holds a share of, idle or releasing (KAI's NonAllocatedResource, counting whole GPUs),
// for `kCpu` its idle CPU;
// binpack puts the least free first, spread the largest free / total first; nodes without the
// resource go last; ties go to the node that sorts first by name. This is exactly the order
// actions::BetterNode gives among nodes with the same integer score points.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace quotient::framework {

struct NodeState;

class NodeOrderIndex {
 public:
  enum class Resource { kGpu, kCpu };

  struct Entry {
    int64_t free = 0;
    int64_t total = 0;
    core::Index node = core::kNone;
    bool overcommitted = false;  // kGpu: a device holds more than one GPU (free below zero)
  };
  struct Order {
    bool binpack = true;
    bool operator()(const Entry& a, const Entry& b) const;
  };
  using Set = std::set<Entry, Order>;

  NodeOrderIndex(Resource resource, bool binpack, std::string node_pool)
      : resource_(resource), pool_(std::move(node_pool)), nodes_(Order{binpack}) {}

  // Adds every node of the pool (called once, when the index is first asked for).
  void Build(const core::Snapshot& snapshot, const std::vector<NodeState>& states);
  // The node's state changed: re-files it (a no-op for nodes of other pools).
  void Update(const core::Snapshot& snapshot, const std::vector<NodeState>& states,
              core::Index node);

  Resource resource() const { return resource_; }
  bool binpack() const { return nodes_.key_comp().binpack; }
  const std::string& node_pool() const { return pool_; }
  const Set& nodes() const { return nodes_; }
  // Binpack: the first node that can have `free` of the resource in whole free devices or in
  // idle CPU (nodes before it cannot); for spread, begin(). With an over-committed device
  // somewhere in the pool a node's sum can hide a device with room, so then begin() too.
  Set::const_iterator FirstWithAtLeast(int64_t free) const;
  // Whether some filed node has an over-committed device (sums of room then say little).
  bool overcommitted() const { return overcommitted_ > 0; }
  // Whether `node` is filed here and comes before `at` (end(): every filed node does).
  bool Before(core::Index node, Set::const_iterator at) const;

 private:
  Entry EntryOf(const core::Snapshot& snapshot, const NodeState& state, core::Index node) const;

  Resource resource_;
  std::string pool_;
  Set nodes_;
  std::vector<Entry> filed_;   // by node: the entry now in the set (node kNone: not filed)
  int64_t overcommitted_ = 0;  // filed nodes with an over-committed device
};

}  // namespace quotient::framework
