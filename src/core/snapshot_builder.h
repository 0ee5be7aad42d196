// BuildSnapshot: ClusterObjects -> Snapshot, applying KAI's rules to the raw objects.
//
// The rules (kai-reference §1.2, §2.1, §4.1, §5, §6; kai-subtleties §1–§6):
//   - queues: priority defaults to 100; a queue whose parent is missing, that sits in a parent
//     cycle, or that lacks spec.resources is unusable together with its whole subtree;
//   - pods: request = max(sum of containers, largest init container) + overhead + 1 pod; status
//     from phase, nodeName, deletionTimestamp and scheduling gates; GPU sharing from annotations;
//   - pod groups: pods join the PodGroup named by their `pod-group-name` annotation; a pod of this
//     scheduler without one gets an implicit group of one (queue from `kai.scheduler/queue`, else
//     `project`, else `default-queue`); priority from the PriorityClass, else the global default
//     class, else 50; preemptible unless set otherwise when priority < 100;
//   - shared GPUs: running fractional pods rebuild each node's shared devices from their
//     `runai-gpu-group` labels; node GPU memory comes from `nvidia.com/gpu.memory`.
// Object-level problems never fail the build: they land in the object's `problems` and in the
// returned diagnostics, and the object is unschedulable.
#pragma once

#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/snapshot.h"

namespace quotient::core {

struct SnapshotOptions {
  std::string scheduler_name = "quotient";
  Time now{};
  std::string queue_label_key = "kai.scheduler/queue";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  // A pod without a pod-group-name annotation gets an implicit group of one. With this false,
  // only bare pods do: a pod a controller owns may be one member of a gang, so it waits for the
  // pod grouper (`quotient podgrouper`) to name its PodGroup rather than run alone.
  bool group_owned_pods_implicitly = true;
};

struct SnapshotBuild {
  Snapshot snapshot;
  std::vector<Diagnostic> diagnostics;  // warnings only: the build itself cannot fail
};

SnapshotBuild BuildSnapshot(const ClusterObjects& objects, const SnapshotOptions& options);

// Well-known keys.
inline constexpr std::string_view kPodGroupNameAnnotation = "pod-group-name";
inline constexpr std::string_view kSubGroupLabel = "kai.scheduler/subgroup-name";
inline constexpr std::string_view kTaskPriorityLabel = "kai.scheduler/task-priority";
inline constexpr std::string_view kPreemptibilityLabel = "kai.scheduler/preemptibility";
inline constexpr std::string_view kGpuGroupLabel = "runai-gpu-group";
inline constexpr std::string_view kGpuMemoryNodeLabel = "nvidia.com/gpu.memory";
inline constexpr std::string_view kMigEnabledNodeLabel = "node-role.kubernetes.io/mig-enabled";
inline constexpr std::string_view kMigStrategyNodeLabel = "nvidia.com/mig.strategy";
inline constexpr std::string_view kLastStartAnnotation = "kai.scheduler/last-start-timestamp";
inline constexpr std::string_view kStaleSinceAnnotation = "kai.scheduler/stale-podgroup-timestamp";
inline constexpr std::string_view kStaleGraceAnnotation = "quotient.dev/stale-grace-period";
inline constexpr std::string_view kLastEvictionAnnotation = "kai.scheduler/last-eviction-timestamp";
inline constexpr std::string_view kDefaultQueueName = "default-queue";
inline constexpr int32_t kDefaultQueuePriority = 100;
inline constexpr int32_t kDefaultPodGroupPriority = 50;
inline constexpr int32_t kNonPreemptiblePriorityThreshold = 100;

}  // namespace quotient::core
