#include "generate/cluster_spec.h"

#include <string>

namespace quotient::generate {
namespace {

ClusterSpec Mixed(int nodes, int departments, int projects, int running_pods, int pending_groups) {
  ClusterSpec spec;
  spec.nodes = nodes;
  spec.departments = departments;
  spec.projects_per_department = projects;
  spec.running_pods = running_pods;
  spec.pending_groups = pending_groups;
  return spec;
}

Status InRange(std::string_view flag, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return Status::Ok();
  return Status::Error(std::string(flag) + " must be between " + std::to_string(min) + " and " +
                       std::to_string(max) + ", got " + std::to_string(value));
}

}  // namespace

const std::vector<std::string>& PresetNames() {
  static const std::vector<std::string> kNames = {"small", "large", "xlarge", "reclaim-1000"};
  return kNames;
}

Result<ClusterSpec> PresetSpec(std::string_view name) {
  // Ten running pods and two pending groups per node, as in bench/synthetic_cluster.h.
  if (name == "small") return Mixed(100, 2, 5, 1'000, 200);
  if (name == "large") return Mixed(1'000, 10, 10, 10'000, 2'000);
  if (name == "xlarge") return Mixed(10'000, 20, 50, 100'000, 20'000);
  if (name == "reclaim-1000") {
    ClusterSpec spec;
    spec.workload = Workload::kReclaimLargeJobs;
    spec.nodes = 1'000;
    return spec;
  }
  std::string known;
  for (const std::string& n : PresetNames()) known += (known.empty() ? "" : ", ") + n;
  return Result<ClusterSpec>::Error("unknown preset \"" + std::string(name) +
                                    "\" (known: " + known + ")");
}

Status ValidateSpec(const ClusterSpec& spec) {
  const Status checks[] = {
      InRange("--nodes", spec.nodes, 1, kMaxNodes),
      InRange("--gpus-per-node", spec.gpus_per_node, kMinGpusPerNode, kMaxGpusPerNode),
      InRange("--gpu-memory", spec.gpu_memory_mib, kMinGpuMemoryMib, kMaxGpuMemoryMib),
      InRange("--pools", spec.node_pools, 1, spec.nodes),
      InRange("--departments", spec.departments, 1, kMaxQueuesPerLevel),
      InRange("--projects", spec.projects_per_department, 1, kMaxQueuesPerLevel),
      InRange("--departments x --projects",
              int64_t{spec.departments} * spec.projects_per_department, 1, kMaxLeafQueues),
      InRange("--running-pods", spec.running_pods, 0, kMaxRunningPods),
      InRange("--pending-groups", spec.pending_groups, 0, kMaxPendingGroups),
  };
  for (const Status& s : checks) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace quotient::generate
