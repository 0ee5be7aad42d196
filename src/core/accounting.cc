#include "core/accounting.h"

#include <optional>

#include "common/int128.h"

namespace quotient::core {
namespace {

// A pending gpu-memory request as KAI's GpuMemoryAsGpuFraction: devices x memory / divisor in
// milli-GPU, rounded up (KAI keeps the exact fraction, and with labels floored to 100 MiB it is
// rarely a whole number of milli-GPUs: 2 x 40960 MiB of an 81900 MiB GPU is 1.000244 GPUs, more
// than a deserved quota of 1, which a queue-order or capacity test against a whole number of
// milli-GPUs, x <= D or x > D, then decides exactly as KAI does), uncapped: a request larger than
// the divisor counts more than a device, as in KAI. No divisor (no node labels its GPU memory):
// no GPU, as KAI skips the conversion when MinNodeGPUMemoryMiB / MaxNodeGPUMemoryMiB is nil.
Quantity PendingMemoryQuota(const GpuSharing& g, std::optional<int64_t> divisor) {
  if (!divisor || *divisor <= 0) return Quantity::Zero();
  const Int128 num = static_cast<Int128>(g.memory_mib.value()) * 1000 * g.num_devices;
  const Int128 den = *divisor;
  return Quantity(static_cast<int64_t>((num + den - 1) / den));
}

// `pending_divisor`: the GPU memory a pending gpu-memory request is sized by.
Quantity GpuQuota(const Pod& pod, const Node* node, std::optional<int64_t> pending_divisor) {
  const GpuSharing& g = pod.gpu;
  switch (g.kind) {
    case GpuSharing::Kind::kNone:
      return Quantity::Zero();
    case GpuSharing::Kind::kWhole:
      return Quantity(1000).Times(g.whole_devices);
    case GpuSharing::Kind::kFraction:
      return g.portion_milli.Times(g.num_devices);
    case GpuSharing::Kind::kMemory:
      if (node != nullptr && node->gpu_memory_mib) {
        // Not capped at a device either (KAI's getGpuMemoryFractionalOnNode): a pod asking for
        // a 40960 MiB GPU's whole label counts 1.01, the label floored to 40900 as KAI reads it.
        return MemoryToPortionMilli(g.memory_mib, *node->gpu_memory_mib).Times(g.num_devices);
      }
      return PendingMemoryQuota(g, pending_divisor);
    case GpuSharing::Kind::kMig:
      return g.mig_gpu_units_milli;
  }
  return Quantity::Zero();
}

ShareVector QuotaWith(const Pod& pod, const Node* node, std::optional<int64_t> pending_divisor) {
  ShareVector v;
  v[ShareResource::kGpu] = GpuQuota(pod, node, pending_divisor);
  v[ShareResource::kCpu] = pod.request.cpu_milli;
  v[ShareResource::kMemory] = pod.request.memory_bytes;
  return v;
}

}  // namespace

ShareVector QuotaOf(const Pod& pod, const Node* node, const Snapshot& snapshot) {
  return QuotaWith(pod, node, snapshot.min_node_gpu_memory_mib);
}

ShareVector CapacityCheckQuotaOf(const Pod& pod, const Snapshot& snapshot) {
  // KAI's capacity_policy.getRequiredQuota: the largest GPU memory, the smallest fraction.
  return QuotaWith(pod, nullptr, snapshot.max_node_gpu_memory_mib);
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
