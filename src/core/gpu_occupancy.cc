// Where running pods sit: each node's pod list, used resources and GPU devices.
//
// Kubernetes does not say which device a whole-GPU pod holds, so whole-GPU pods take the
// lowest-numbered free devices in pod-key order. Fractional pods are grouped by their GPU group
// label (one group = one shared device). A running fractional pod without a group label gets a
// group named after itself, so its portion is still accounted. Over-committed input (more held
// than the node has) adds devices beyond the allocatable count rather than losing pods.
#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/build_steps.h"

namespace quotient::core::build {
namespace {

// The portion of one device a shared pod holds on `node`.
Quantity SharedPortion(const Pod& pod, const Node& node) {
  if (pod.gpu.kind == GpuSharing::Kind::kFraction) return pod.gpu.portion_milli;
  // gpu-memory: converted with the node's GPU memory; a node without the label holds a full GPU.
  if (!node.gpu_memory_mib) return Quantity(1000);
  return Min(Quantity(1000), MemoryToPortionMilli(pod.gpu.memory_mib, *node.gpu_memory_mib));
}

GpuDevice& TakeIdleDevice(Node& node) {
  for (GpuDevice& d : node.gpus) {
    if (d.state == GpuDevice::State::kIdle) return d;
  }
  node.gpus.emplace_back();
  return node.gpus.back();
}

void PlaceShared(Node& node, const std::vector<Pod>& pods, const std::vector<Index>& shared_pods) {
  // group name -> holders, ordered by group name.
  std::map<std::string, std::vector<GpuDevice::Holder>> groups;
  for (Index i : shared_pods) {
    const Pod& pod = pods[static_cast<size_t>(i)];
    std::vector<std::string> names = pod.gpu_groups;
    for (int64_t k = static_cast<int64_t>(names.size()); k < pod.gpu.num_devices; ++k) {
      names.push_back(pod.key + "#" + std::to_string(k));
    }
    for (const std::string& g : names) groups[g].push_back({i, SharedPortion(pod, node)});
  }
  for (auto& [name, holders] : groups) {
    GpuDevice& d = TakeIdleDevice(node);
    d.state = GpuDevice::State::kShared;
    d.group = name;
    for (const GpuDevice::Holder& h : holders) d.used_portion_milli += h.portion_milli;
    d.holders = std::move(holders);
  }
}

}  // namespace

void PlaceOnNode(Node& node, Index n, std::vector<Pod>& pods, const std::vector<Index>& on_node) {
  std::vector<Index> shared;
  std::vector<Index> whole;
  for (Index i : on_node) {
    Pod& pod = pods[static_cast<size_t>(i)];
    pod.node = n;
    node.pods.push_back(i);
    node.used += pod.request;
    if (pod.gpu.legacy_mig) ++node.legacy_mig_pods;
    if (pod.gpu.is_shared()) shared.push_back(i);
    if (pod.gpu.kind == GpuSharing::Kind::kWhole) whole.push_back(i);
  }
  PlaceShared(node, pods, shared);
  for (Index i : whole) {
    for (int64_t k = 0; k < pods[static_cast<size_t>(i)].gpu.whole_devices; ++k) {
      GpuDevice& d = TakeIdleDevice(node);
      d.state = GpuDevice::State::kWhole;
      d.used_portion_milli = Quantity(1000);
      d.holders.push_back({i, Quantity(1000)});
    }
  }
}

void PlacePodsOnNodes(std::vector<Node>& nodes, std::vector<Pod>& pods) {
  // Lookup only (nothing iterates it), so a hash map's order decides nothing.
  std::unordered_map<std::string_view, Index> node_index;
  node_index.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    node_index.emplace(nodes[i].name, static_cast<Index>(i));
  std::vector<std::vector<Index>> on_node(nodes.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    const Pod& pod = pods[i];
    if (!IsActiveUsedStatus(pod.status)) continue;
    auto found = node_index.find(pod.node_name);
    if (found != node_index.end())
      on_node[static_cast<size_t>(found->second)].push_back(static_cast<Index>(i));
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    PlaceOnNode(nodes[n], static_cast<Index>(n), pods, on_node[n]);
  }
}

}  // namespace quotient::core::build
