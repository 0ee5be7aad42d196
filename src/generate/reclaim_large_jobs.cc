// KAI's ReclaimLargeJobs benchmark (pkg/scheduler/actions/reclaim), as
// bench/synthetic_cluster.cc's MakeReclaimLargeJobs builds it: N nodes of G GPUs filled by N x G
// running one-GPU pods of queue-0 (GPU quota 0, over-quota weight 0), spread round-robin, and one
// pending gang of max(1, N / 10) pods x G GPUs in queue-1 (quota N x G, weight 0), which can only
// start by reclaiming whole nodes. Pods ask for 100 millicores and 400 MB; no priority classes.
#include <algorithm>

#include "generate/plan_steps.h"

namespace quotient::generate::plan {
namespace {

constexpr int64_t kPodCpuMilli = 100;
constexpr int64_t kPodMemoryBytes = kPodCpuMilli * 4'000'000;

PlannedPod Pod(std::string ns, std::string name, std::string queue, int gpus) {
  PlannedPod pod;
  pod.namespace_name = std::move(ns);
  pod.name = std::move(name);
  pod.queue = std::move(queue);
  pod.cpu_milli = kPodCpuMilli;
  pod.memory_bytes = kPodMemoryBytes;
  pod.gpus = gpus;
  return pod;
}

}  // namespace

ClusterPlan PlanReclaimLargeJobs(const ClusterSpec& spec) {
  ClusterSpec nodes_only = spec;
  nodes_only.mixed_gpus = false;
  nodes_only.node_pools = 1;
  ClusterPlan plan;
  plan.nodes = PlanNodes(nodes_only);
  const int64_t cluster_gpus = int64_t{spec.nodes} * spec.gpus_per_node;
  plan.queues.push_back({"queue-0", "", 0, std::nullopt, 0});
  plan.queues.push_back({"queue-1", "", cluster_gpus, std::nullopt, 0});
  for (int64_t i = 0; i < cluster_gpus; ++i) {
    PlannedPod pod = Pod("run", "running-job-" + std::to_string(i), "queue-0", 1);
    pod.node = plan.nodes[static_cast<size_t>(i % spec.nodes)].name;
    plan.pods.push_back(std::move(pod));
  }
  const int gang = std::max(1, spec.nodes / 10);
  plan.pod_groups.push_back({"big", "very-large-job", "queue-1", "", "", gang});
  for (int i = 0; i < gang; ++i) {
    PlannedPod pod =
        Pod("big", "very-large-job-" + std::to_string(i), "queue-1", spec.gpus_per_node);
    pod.pod_group = "very-large-job";
    plan.pods.push_back(std::move(pod));
  }
  return plan;
}

}  // namespace quotient::generate::plan
