// The Alibaba GPU cluster trace v2023 ("openb", from the FGD paper, ATC'23) turned into a cluster
// and a workload for `quotient simulate` (docs/traces.md §1 in the shared references).
//
//   node CSV  `sn,cpu_milli,memory_mib,gpu,model`: name, CPU in milli-cores, memory in MiB, GPUs,
//             GPU model (empty on CPU-only nodes);
//   pod CSV   `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//             deletion_time,scheduled_time`: requests, GPUs and the share of each GPU in milli
//             (1000 = whole), allowed GPU models ("V100M16|V100M32", empty = any), QoS, phase when
//             the trace was taken, times in seconds. The multigpu* lists have only the first five
//             columns: their pods all arrive at the start and never finish.
//
// The cluster: the listed nodes, each labelled with its GPU model (nvidia.com/gpu.product); one
// queue `openb` that deserves all their GPUs. Each pod is one Pod, a job of its own, in class
// `train` (50, preemptible), with its requests:
//   num_gpu 0                          no GPU;
//   gpu_milli 1000                     nvidia.com/gpu: num_gpu, whole devices;
//   gpu_milli < 1000                   gpu-fraction "0.47" (and gpu-fraction-num-devices for
//                                      num_gpu > 1: that share of each of N GPUs);
//   gpu_spec "A|B"                     a required node affinity: nvidia.com/gpu.product In (A, B).
// It arrives at its creation_time after the first pod's (no creation_time: at the start) and,
// when the trace saw it deleted, runs until deletion_time from its scheduled_time (at least 1 s),
// or, never scheduled (Pending), for as long as its request stood: from creation to deletion.
// Without deletion_time it runs until the end. QoS and phase are kept as labels only. Bad rows
// are errors naming the file, line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "generate/cluster_generator.h"

namespace quotient::traces {

struct OpenbNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;
  std::string model;  // empty: none given
};

struct OpenbPod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;                     // num_gpu
  int64_t gpu_milli = 0;                // of each GPU: 1..1000, 0 without GPUs
  std::vector<std::string> gpu_models;  // gpu_spec: sorted, unique; empty = any model
  std::string qos;
  std::string phase;
  std::optional<int64_t> created;  // seconds, the trace's clock
  std::optional<int64_t> deleted;
  std::optional<int64_t> scheduled;
};

struct OpenbTrace {
  std::vector<OpenbNode> nodes;  // in file order
  std::vector<OpenbPod> pods;    // by creation (none first), then file order
};

// Reads both files; `limit`: only the first N pods by creation.
Result<OpenbTrace> ReadOpenb(const std::string& nodes_csv, const std::string& pods_csv,
                             std::optional<size_t> limit = std::nullopt);

// The node label carrying the GPU model, which gpu_spec constraints select on.
inline constexpr std::string_view kOpenbGpuModelLabel = "nvidia.com/gpu.product";

// The cluster and workload as Kubernetes objects: PriorityClass, Queue, Nodes, then the Pods.
void ForEachOpenbObject(const OpenbTrace& trace, const generate::ObjectVisitor& visit);

}  // namespace quotient::traces
