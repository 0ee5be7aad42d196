#include "core/accounting.h"

#include "common/int128.h"

namespace quotient::core {
namespace {

Quantity GpuQuota(const Pod& pod, const Node* node, const Snapshot& snapshot) {
  const GpuSharing& g = pod.gpu;
  switch (g.kind) {
    case GpuSharing::Kind::kNone:
      return Quantity::Zero();
    case GpuSharing::Kind::kWhole:
      return Quantity(1000).Times(g.whole_devices);
    case GpuSharing::Kind::kFraction:
      return g.portion_milli.Times(g.num_devices);
    case GpuSharing::Kind::kMemory: {
      if (node != nullptr && node->gpu_memory_mib) {
        return Min(Quantity(1000), MemoryToPortionMilli(g.memory_mib, *node->gpu_memory_mib))
            .Times(g.num_devices);
      }
      // KAI's GpuMemoryAsGpuFraction with the smallest labelled GPU memory; none labelled:
      // the pending request counts no GPU (KAI's MinNodeGPUMemoryMiB is nil then).
      if (!snapshot.min_node_gpu_memory_mib) return Quantity::Zero();
      // memory / min GPU memory in milli-GPU, to the nearest (KAI keeps the exact fraction).
      const Int128 num = static_cast<Int128>(g.memory_mib.value()) * 1000;
      const Int128 den = *snapshot.min_node_gpu_memory_mib;
      const Int128 per_device = (2 * num + den) / (2 * den);
      return Quantity(static_cast<int64_t>(per_device > 1000 ? 1000 : per_device))
          .Times(g.num_devices);
    }
    case GpuSharing::Kind::kMig:
      return g.mig_gpu_units_milli;
  }
  return Quantity::Zero();
}

}  // namespace

ShareVector QuotaOf(const Pod& pod, const Node* node, const Snapshot& snapshot) {
  ShareVector v;
  v[ShareResource::kGpu] = GpuQuota(pod, node, snapshot);
  v[ShareResource::kCpu] = pod.request.cpu_milli;
  v[ShareResource::kMemory] = pod.request.memory_bytes;
  return v;
}

ShareVector ClusterCapacity(const Snapshot& snapshot) {
  ShareVector total;
  for (const Node& node : snapshot.nodes) {
    if (!node.usable) continue;
    total[ShareResource::kCpu] += node.allocatable.cpu_milli;
    total[ShareResource::kMemory] += node.allocatable.memory_bytes;
    total[ShareResource::kGpu] += node.allocatable.gpu_milli;
    for (const auto& [name, amount] : node.allocatable.scalars()) {
      // MIG instances: count x <g> GPU units; scalars are milli-units, so amount is count x 1000.
      if (std::optional<int64_t> units = MigGpuUnits(name)) {
        total[ShareResource::kGpu] += amount.Times(*units);
      }
    }
    for (Index i : node.pods) {
      const Pod& pod = snapshot.pods[static_cast<size_t>(i)];
      if (pod.ours) continue;
      if (!IsUtilityPod(pod)) total -= QuotaOf(pod, &node, snapshot);
    }
  }
  return total;
}

}  // namespace quotient::core
