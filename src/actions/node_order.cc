#include "actions/node_order.h"

#include "common/int128.h"

namespace quotient::actions {
namespace {

bool IsWholeGpuPod(const core::Pod& pod) { return pod.gpu.kind == core::GpuSharing::Kind::kWhole; }

}  // namespace

NodeScore ScoreNode(const framework::Session& session, core::Index pod_index,
                    core::Index node_index, const NodeFit& fit, const PlacementPolicy& policy) {
  const core::Pod& pod = session.pod(pod_index);
  const core::Node& node = session.node(node_index);
  const framework::NodeState& state = session.state().node(node_index);
  const bool gpu_pod = pod.gpu.kind != core::GpuSharing::Kind::kNone;
  NodeScore s;
  // gpusharingorder (KAI's nodeOrderFn): a node with a shared GPU in use that has room for the
  // pod's GPU memory. A pod that asks for no GPU share (CPU-only, MIG) needs none, so any node
  // with a shared GPU in use earns it; a whole-GPU pod needs a whole device's memory, which no
  // GPU in use has.
  if (pod.gpu.is_shared() ? fit.fits_existing_shared
                          : !IsWholeGpuPod(pod) && session.state().shared_gpu_in_use(node_index)) {
    s.points += 1000;
  }
  if (fit.available) s.points += 100;
  const bool gpu_node = !state.devices.empty() || node.mig_enabled;
  if (!gpu_pod && !gpu_node) s.points += 10;
  if (gpu_pod) {
    s.binpack = policy.gpu_binpack;
    s.free = state.NonAllocatedGpuMilli();
    s.total = static_cast<int64_t>(state.devices.size()) * framework::kWholeGpuMilli;
  } else {
    s.binpack = policy.cpu_binpack;
    // KAI's nodeResourcePack scores NonAllocatedResource: idle plus releasing (pipelined pods
    // charge releasing first, so the sum is what neither running nor placed pods hold).
    s.free = (state.idle.cpu_milli + state.releasing.cpu_milli).value();
    s.total = node.allocatable.cpu_milli.value();
  }
  return s;
}

bool BetterNode(const NodeScore& a, const NodeScore& b) {
  if (a.points != b.points) return a.points > b.points;
  // A node without the resource scores 0 in KAI's placement term.
  if ((a.total > 0) != (b.total > 0)) return a.total > 0;
  if (a.binpack) return a.free < b.free;
  const Int128 lhs = static_cast<Int128>(a.free) * b.total;
  const Int128 rhs = static_cast<Int128>(b.free) * a.total;
  return lhs > rhs;
}

}  // namespace quotient::actions
