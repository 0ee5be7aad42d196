// ClusterSpec: the parameters of a synthetic cluster for `quotient generate cluster`, and the
// named presets (docs/generate-command.md).
//
// Two workloads share the spec. kMixed is bench/synthetic_cluster.h's cluster, made consistent and
// written as Kubernetes objects: nodes of 8 GPUs, a department x project queue tree, running pods
// packed node by node (whole GPUs, shared half GPUs, CPU-only, running gangs) and pending pod
// groups of mixed shapes. kReclaimLargeJobs is KAI's ReclaimLargeJobs benchmark: it reads only
// `nodes`, `gpus_per_node` and `gpu_memory_mib`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quotient::generate {

enum class Workload { kMixed, kReclaimLargeJobs };

// Defaults are the `small` preset.
struct ClusterSpec {
  Workload workload = Workload::kMixed;
  int nodes = 100;
  int gpus_per_node = 8;
  int64_t gpu_memory_mib = 81920;  // the nvidia.com/gpu.memory label of each node
  // Every fourth node (index % 4 == 3) is a second shape: 4 GPUs of 40960 MiB.
  bool mixed_gpus = false;
  // 1 = no node-pool label. K > 1: nodes split into K contiguous pools labelled
  // kai.scheduler/node-pool=pool-<k>; running and pending work is spread over them round-robin.
  int node_pools = 1;
  int departments = 2;
  int projects_per_department = 5;  // leaf queues = departments x projects_per_department
  int running_pods = 1000;
  int pending_groups = 200;
  uint64_t seed = 42;
};

// The preset names, in the order the help text lists them: small, large, xlarge, reclaim-1000.
const std::vector<std::string>& PresetNames();

// The spec of a named preset; an unknown name is an error that lists the valid ones.
Result<ClusterSpec> PresetSpec(std::string_view name);

// Checks each field's range and the fields against each other. Messages name the field by its
// command-line flag ("--nodes must be between 1 and 100000, got 0"), since each field is one.
// Whether the running pods fit on the nodes is only known when they are placed (PlanCluster).
Status ValidateSpec(const ClusterSpec& spec);

// Bounds, shared with the command's validators.
inline constexpr int kMaxNodes = 100'000;
inline constexpr int kMinGpusPerNode = 2;   // running 2-GPU pods must fit on a node
inline constexpr int kMaxGpusPerNode = 16;  // pairs of shared pods stay within 110 pods, 128 cores
inline constexpr int64_t kMinGpuMemoryMib = 1000;
// KAI reads nvidia.com/gpu.memory values of 1 TiB-in-MiB (1048576) or more as bytes.
inline constexpr int64_t kMaxGpuMemoryMib = 1024 * 1024 - 1;
inline constexpr int kMaxQueuesPerLevel = 1000;
inline constexpr int kMaxLeafQueues = 100'000;
inline constexpr int kMaxRunningPods = 10'000'000;
inline constexpr int kMaxPendingGroups = 10'000'000;

}  // namespace quotient::generate
