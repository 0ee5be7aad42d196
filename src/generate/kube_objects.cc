#include "generate/kube_objects.h"

#include <chrono>
#include <string>

#include "core/gpu_sharing.h"
#include "core/resources.h"
#include "core/snapshot_builder.h"
#include "core/time_text.h"
#include "generate/plan_steps.h"

namespace quotient::generate {
namespace {

using nlohmann::json;

constexpr const char* kSchedulerName = "quotient";
constexpr std::string_view kQueueLabel = "kai.scheduler/queue";
constexpr std::string_view kNodePoolLabel = "kai.scheduler/node-pool";
constexpr const char* kImage = "quotient.dev/synthetic-workload:latest";

std::string Key(std::string_view key) { return std::string(key); }

// Fixed: the output never depends on when it was generated.
std::string CreationTimestamp(int64_t ordinal) {
  using std::chrono::sys_days;
  constexpr sys_days kEpoch = std::chrono::year{2026} / 1 / 1;
  return core::FormatRfc3339(core::Time(kEpoch) + std::chrono::seconds(ordinal));
}

// UUID-shaped (version 4 layout) and unique within the output.
std::string Uid(int64_t ordinal) {
  std::string hex(12, '0');
  uint64_t v = static_cast<uint64_t>(ordinal);
  for (size_t i = hex.size(); i > 0 && v > 0; --i, v >>= 4) {
    hex[i - 1] = "0123456789abcdef"[v & 0xf];
  }
  return "00000000-0000-4000-8000-" + hex;
}

json Metadata(const std::string& name, const std::string& namespace_name, int64_t ordinal) {
  json meta = {
      {"name", name}, {"uid", Uid(ordinal)}, {"creationTimestamp", CreationTimestamp(ordinal)}};
  if (!namespace_name.empty()) meta["namespace"] = namespace_name;
  return meta;
}

// KAI's queue amounts: a number of GPUs, -1 = unlimited.
json QueueResource(int64_t quota, std::optional<int64_t> limit, int64_t weight) {
  return {{"quota", quota}, {"limit", limit ? *limit : -1}, {"overQuotaWeight", weight}};
}

json PodResources(const PlannedPod& pod) {
  json requests = {{Key(core::kCpuResource), CpuQuantity(pod.cpu_milli)},
                   {Key(core::kMemoryResource), MemoryQuantity(pod.memory_bytes)}};
  json resources = json::object();
  if (pod.gpus > 0) {
    // Extended resources must have a limit equal to the request in Kubernetes.
    requests[Key(core::kGpuResource)] = std::to_string(pod.gpus);
    resources["limits"] = {{Key(core::kGpuResource), std::to_string(pod.gpus)}};
  }
  resources["requests"] = std::move(requests);
  return resources;
}

}  // namespace

std::string CpuQuantity(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

std::string MemoryQuantity(int64_t bytes) {
  struct Suffix {
    int64_t factor;
    const char* text;
  };
  constexpr Suffix kSuffixes[] = {
      {int64_t{1} << 40, "Ti"}, {int64_t{1} << 30, "Gi"}, {1'000'000'000, "G"}, {1'000'000, "M"}};
  for (const Suffix& s : kSuffixes) {
    if (bytes != 0 && bytes % s.factor == 0) return std::to_string(bytes / s.factor) + s.text;
  }
  return std::to_string(bytes);
}

json PriorityClassObject(const PlannedPriorityClass& priority_class, int64_t ordinal) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", Metadata(priority_class.name, "", ordinal)},
          {"value", priority_class.value}};
}

json QueueObject(const PlannedQueue& queue, int64_t ordinal) {
  json spec = {
      {"resources",
       {{"gpu", QueueResource(queue.gpu_quota, queue.gpu_limit, queue.gpu_over_quota_weight)},
        {"cpu", QueueResource(-1, std::nullopt, 1)},
        {"memory", QueueResource(-1, std::nullopt, 1)}}}};
  if (!queue.parent.empty()) spec["parentQueue"] = queue.parent;
  return {{"apiVersion", "scheduling.run.ai/v2"},
          {"kind", "Queue"},
          {"metadata", Metadata(queue.name, "", ordinal)},
          {"spec", std::move(spec)}};
}

json NodeObject(const PlannedNode& node, int64_t ordinal) {
  json meta = Metadata(node.name, "", ordinal);
  meta["labels"] = {{"kubernetes.io/hostname", node.name},
                    {Key(core::kGpuMemoryNodeLabel), std::to_string(node.gpu_memory_mib)}};
  if (!node.pool.empty()) meta["labels"][Key(kNodePoolLabel)] = node.pool;
  const json capacity = {{Key(core::kCpuResource), CpuQuantity(plan::kNodeCpuMilli)},
                         {Key(core::kMemoryResource), MemoryQuantity(plan::kNodeMemoryBytes)},
                         {Key(core::kGpuResource), std::to_string(node.gpus)},
                         {Key(core::kPodsResource), std::to_string(plan::kNodePods)}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", std::move(meta)},
          {"status",
           {{"capacity", capacity},
            {"allocatable", capacity},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json PodGroupObject(const PlannedPodGroup& group, int64_t ordinal) {
  json meta = Metadata(group.name, group.namespace_name, ordinal);
  if (!group.pool.empty()) meta["labels"] = {{Key(kNodePoolLabel), group.pool}};
  json spec = {{"queue", group.queue}, {"minMember", group.min_member}};
  if (!group.priority_class.empty()) spec["priorityClassName"] = group.priority_class;
  return {{"apiVersion", "scheduling.run.ai/v2alpha2"},
          {"kind", "PodGroup"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)}};
}

json PodObject(const PlannedPod& pod, int64_t ordinal) {
  json meta = Metadata(pod.name, pod.namespace_name, ordinal);
  json labels = {{Key(kQueueLabel), pod.queue}};
  if (!pod.pool.empty()) labels[Key(kNodePoolLabel)] = pod.pool;
  if (!pod.gpu_group.empty()) labels[Key(core::kGpuGroupLabel)] = pod.gpu_group;
  json annotations = json::object();
  if (!pod.pod_group.empty()) annotations[Key(core::kPodGroupNameAnnotation)] = pod.pod_group;
  if (!pod.gpu_fraction.empty()) annotations[Key(core::kGpuFractionAnnotation)] = pod.gpu_fraction;
  if (pod.gpu_memory_mib > 0) {
    annotations[Key(core::kGpuMemoryAnnotation)] = std::to_string(pod.gpu_memory_mib);
  }
  meta["labels"] = std::move(labels);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);

  json spec = {
      {"schedulerName", kSchedulerName},
      {"containers",
       json::array({{{"name", "main"}, {"image", kImage}, {"resources", PodResources(pod)}}})}};
  if (!pod.priority_class.empty()) spec["priorityClassName"] = pod.priority_class;
  if (!pod.node.empty()) spec["nodeName"] = pod.node;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)},
          {"status", {{"phase", pod.node.empty() ? "Pending" : "Running"}}}};
}

}  // namespace quotient::generate
