#include "core/snapshot.h"

#include <algorithm>

namespace quotient::core {
namespace {

template <typename T, typename KeyFn>
Index FindSorted(const std::vector<T>& items, std::string_view key, KeyFn key_of) {
  auto it = std::lower_bound(items.begin(), items.end(), key,
                             [&](const T& item, std::string_view k) { return key_of(item) < k; });
  if (it == items.end() || key_of(*it) != key) return kNone;
  return static_cast<Index>(it - items.begin());
}

}  // namespace

std::string_view PodStatusName(PodStatus s) {
  switch (s) {
    case PodStatus::kPending:
      return "Pending";
    case PodStatus::kGated:
      return "Gated";
    case PodStatus::kAllocated:
      return "Allocated";
    case PodStatus::kPipelined:
      return "Pipelined";
    case PodStatus::kBinding:
      return "Binding";
    case PodStatus::kBound:
      return "Bound";
    case PodStatus::kRunning:
      return "Running";
    case PodStatus::kReleasing:
      return "Releasing";
    case PodStatus::kSucceeded:
      return "Succeeded";
    case PodStatus::kFailed:
      return "Failed";
    case PodStatus::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

bool IsAllocatedStatus(PodStatus s) {
  return s == PodStatus::kAllocated || s == PodStatus::kBound || s == PodStatus::kBinding ||
         s == PodStatus::kRunning;
}

bool IsActiveUsedStatus(PodStatus s) {
  return IsAllocatedStatus(s) || s == PodStatus::kPipelined || s == PodStatus::kReleasing;
}

bool IsStuckInReleasing(const Pod& pod, Time now, std::chrono::seconds threshold) {
  // Strictly longer than the threshold, as KAI's time.Since(deletion) > threshold.
  return pod.status == PodStatus::kReleasing && pod.releasing_since &&
         now - *pod.releasing_since > threshold;
}

bool IsUtilityPod(const Pod& pod) {
  auto it = pod.meta.labels.find("app");
  return it != pod.meta.labels.end() &&
         (it->second == "kai-resource-reservation" || it->second == "scaling-pod" ||
          it->second == "quotient-gpu-reservation");
}

Index Snapshot::FindNode(std::string_view name) const {
  return FindSorted(nodes, name, [](const Node& n) -> std::string_view { return n.name; });
}
Index Snapshot::FindPod(std::string_view key) const {
  return FindSorted(pods, key, [](const Pod& p) -> std::string_view { return p.key; });
}
Index Snapshot::FindJob(std::string_view key) const {
  return FindSorted(jobs, key, [](const Job& j) -> std::string_view { return j.key; });
}
Index Snapshot::FindQueue(std::string_view name) const {
  return FindSorted(queues, name, [](const Queue& q) -> std::string_view { return q.name; });
}

std::vector<Index> Snapshot::RootQueues() const {
  std::vector<Index> roots;
  for (size_t i = 0; i < queues.size(); ++i) {
    if (queues[i].parent == kNone) roots.push_back(static_cast<Index>(i));
  }
  return roots;
}

namespace {

// The least or greatest (as `pick` chooses) labelled GPU memory above KAI's placeholder.
template <typename Pick>
std::optional<int64_t> FoldNodeGpuMemoryMib(const std::vector<Node>& nodes, Pick pick) {
  constexpr int64_t kKaiPlaceholderMib = 100;
  std::optional<int64_t> out;
  for (const Node& n : nodes) {
    if (!n.gpu_memory_mib || *n.gpu_memory_mib <= kKaiPlaceholderMib) continue;
    out = out ? pick(*out, *n.gpu_memory_mib) : *n.gpu_memory_mib;
  }
  return out;
}

}  // namespace

std::optional<int64_t> MinNodeGpuMemoryMib(const std::vector<Node>& nodes) {
  return FoldNodeGpuMemoryMib(nodes, [](int64_t a, int64_t b) { return std::min(a, b); });
}

std::optional<int64_t> MaxNodeGpuMemoryMib(const std::vector<Node>& nodes) {
  return FoldNodeGpuMemoryMib(nodes, [](int64_t a, int64_t b) { return std::max(a, b); });
}

}  // namespace quotient::core
