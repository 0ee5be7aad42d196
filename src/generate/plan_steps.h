// The steps of PlanCluster (cluster_plan.h), one file each; internal to the generate library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "generate/cluster_plan.h"
#include "generate/deterministic_random.h"

namespace quotient::generate::plan {

// Every node has the same CPU, memory and pod capacity, so only GPUs decide where pods go.
inline constexpr int64_t kNodeCpuMilli = 128'000;
inline constexpr int64_t kNodeMemoryBytes = int64_t{1} << 40;  // 1 TiB
inline constexpr int kNodePods = 110;
// The second node shape of --mixed-gpus.
inline constexpr int kSecondShapeGpus = 4;
inline constexpr int64_t kSecondShapeGpuMemoryMib = 40960;

// Node i of `nodes` belongs to pool i * pools / nodes: contiguous, sizes differing by at most one.
inline int PoolIndex(int node, int pools, int nodes) {
  return static_cast<int>(int64_t{node} * pools / nodes);
}
// "pool-<k>", or "" when the cluster has a single pool (no label).
std::string PoolName(int pool, int pools);

// Node names as in bench/synthetic_cluster.cc: node-10000, node-10001, ...
std::vector<PlannedNode> PlanNodes(const ClusterSpec& spec);

// Departments, then each department's projects right after it. GPU quota: 80% of the cluster's
// GPUs split evenly over the projects (rounded down); a department's quota is its projects' sum.
std::vector<PlannedQueue> PlanQueueTree(const ClusterSpec& spec, int64_t cluster_gpus);

// Appends the running pods (and the PodGroups of running gangs), placed on `plan.nodes`, in the
// leaf queues of `plan.queues`. Fails when they do not fit.
Status PlanRunningPods(const ClusterSpec& spec, DeterministicRandom& random, ClusterPlan& plan);

// Appends the pending pod groups and their pods.
void PlanPendingGroups(const ClusterSpec& spec, DeterministicRandom& random, ClusterPlan& plan);

// KAI's ReclaimLargeJobs shape (bench/synthetic_cluster.h MakeReclaimLargeJobs).
ClusterPlan PlanReclaimLargeJobs(const ClusterSpec& spec);

}  // namespace quotient::generate::plan
