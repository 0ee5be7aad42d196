// The mixed workload's nodes and queue tree.
#include <algorithm>

#include "generate/plan_steps.h"

namespace quotient::generate::plan {

std::string PoolName(int pool, int pools) {
  return pools > 1 ? "pool-" + std::to_string(pool) : std::string();
}

std::vector<PlannedNode> PlanNodes(const ClusterSpec& spec) {
  std::vector<PlannedNode> nodes;
  nodes.reserve(static_cast<size_t>(spec.nodes));
  for (int i = 0; i < spec.nodes; ++i) {
    PlannedNode node;
    node.name = "node-" + std::to_string(10000 + i);
    const bool second_shape = spec.mixed_gpus && i % 4 == 3;
    node.gpus = second_shape ? kSecondShapeGpus : spec.gpus_per_node;
    node.gpu_memory_mib = second_shape ? kSecondShapeGpuMemoryMib : spec.gpu_memory_mib;
    node.pool = PoolName(PoolIndex(i, spec.node_pools, spec.nodes), spec.node_pools);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<PlannedQueue> PlanQueueTree(const ClusterSpec& spec, int64_t cluster_gpus) {
  const int64_t leaves = int64_t{spec.departments} * spec.projects_per_department;
  const int64_t project_quota = cluster_gpus * 8 / (10 * leaves);
  std::vector<PlannedQueue> queues;
  for (int d = 0; d < spec.departments; ++d) {
    PlannedQueue department;
    department.name = "dept-" + std::to_string(d);
    department.gpu_quota = project_quota * spec.projects_per_department;
    queues.push_back(department);
    for (int p = 0; p < spec.projects_per_department; ++p) {
      PlannedQueue project;
      project.name = department.name + "-proj-" + std::to_string(p);
      project.parent = department.name;
      project.gpu_quota = project_quota;
      // Weights and limits vary so that over-quota division and OverLimit have work to do:
      // weights cycle 1, 2, 3; every fourth project may use at most twice its quota (at least a
      // node's GPUs, so that a zero quota is not a hard zero).
      project.gpu_over_quota_weight = 1 + p % 3;
      if (p % 4 == 3) project.gpu_limit = std::max<int64_t>(2 * project_quota, spec.gpus_per_node);
      queues.push_back(std::move(project));
    }
  }
  return queues;
}

}  // namespace quotient::generate::plan
