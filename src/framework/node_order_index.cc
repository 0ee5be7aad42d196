#include "framework/node_order_index.h"

#include <tuple>

#include "common/int128.h"
#include "framework/cluster_state.h"

namespace quotient::framework {

bool NodeOrderIndex::Order::operator()(const Entry& a, const Entry& b) const {
  const bool a_has = a.total > 0;
  const bool b_has = b.total > 0;
  if (a_has != b_has) return a_has;
  if (a_has) {
    if (binpack) {
      if (a.free != b.free) return a.free < b.free;
    } else {
      const Int128 lhs = static_cast<Int128>(a.free) * b.total;
      const Int128 rhs = static_cast<Int128>(b.free) * a.total;
      if (lhs != rhs) return lhs > rhs;
    }
  }
  return a.node < b.node;
}

NodeOrderIndex::Entry NodeOrderIndex::EntryOf(const core::Snapshot& snapshot,
                                              const NodeState& state, core::Index node) const {
  Entry e;
  e.node = node;
  if (resource_ == Resource::kGpu) {
    e.free = state.NonAllocatedGpuMilli();
    for (const DeviceState& d : state.devices) {
      e.overcommitted = e.overcommitted || d.free_milli().value() < 0;
    }
    e.total = static_cast<int64_t>(state.devices.size()) * kWholeGpuMilli;
  } else {
    e.free = state.idle.cpu_milli.value();
    e.total = snapshot.nodes[static_cast<size_t>(node)].allocatable.cpu_milli.value();
  }
  return e;
}

void NodeOrderIndex::Build(const core::Snapshot& snapshot, const std::vector<NodeState>& states) {
  filed_.assign(snapshot.nodes.size(), Entry{});
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) {
    if (snapshot.nodes[n].node_pool != pool_) continue;
    const Entry e = EntryOf(snapshot, states[n], static_cast<core::Index>(n));
    nodes_.insert(e);
    filed_[n] = e;
    overcommitted_ += e.overcommitted ? 1 : 0;
  }
}

void NodeOrderIndex::Update(const core::Snapshot& snapshot, const std::vector<NodeState>& states,
                            core::Index node) {
  Entry& filed = filed_[static_cast<size_t>(node)];
  if (filed.node == core::kNone) return;
  const Entry now = EntryOf(snapshot, states[static_cast<size_t>(node)], node);
  overcommitted_ += (now.overcommitted ? 1 : 0) - (filed.overcommitted ? 1 : 0);
  if (now.free != filed.free || now.total != filed.total) {
    nodes_.erase(filed);
    nodes_.insert(now);
  }
  filed = now;
}

NodeOrderIndex::Set::const_iterator NodeOrderIndex::FirstWithAtLeast(int64_t free) const {
  if (!nodes_.key_comp().binpack || overcommitted_ > 0) return nodes_.begin();
  return nodes_.lower_bound(Entry{free, 1, core::kNone});
}

bool NodeOrderIndex::Before(core::Index node, Set::const_iterator at) const {
  const Entry& filed = filed_[static_cast<size_t>(node)];
  if (filed.node == core::kNone) return false;
  return at == nodes_.end() || nodes_.key_comp()(filed, *at);
}

}  // namespace quotient::framework
