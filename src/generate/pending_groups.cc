// The mixed workload's pending pod groups: bench/synthetic_cluster.cc's shapes.
//
// Each group is drawn: with shape = a number in [0, 10), 0, 1 and 5 are one pod of 1 GPU, 2 one pod
// of gpu-fraction 0.25, 3 one pod of gpu-memory 20000 MiB, 4 one CPU-only pod, and 6-9 a gang of
// 2, 4, 8 or 16 pods of 1 to --gpus-per-node GPUs each. Every seventh group is class `inference`
// (priority 125, non-preemptible), the others `train` (50). Namespaces team-0 ... team-49 in turn.
#include "generate/plan_steps.h"

namespace quotient::generate::plan {
namespace {

constexpr int64_t kPodCpuMilli = 8000;
constexpr int64_t kPodMemoryBytes = kPodCpuMilli * 4'000'000;  // 32 GB
constexpr int kNamespaces = 50;
constexpr int64_t kGpuMemoryRequestMib = 20000;

}  // namespace

void PlanPendingGroups(const ClusterSpec& spec, DeterministicRandom& random, ClusterPlan& plan) {
  std::vector<const PlannedQueue*> leaves;
  for (const PlannedQueue& q : plan.queues) {
    if (!q.parent.empty()) leaves.push_back(&q);
  }
  for (int g = 0; g < spec.pending_groups; ++g) {
    PlannedPodGroup group;
    group.namespace_name = "team-" + std::to_string(g % kNamespaces);
    group.name = "job-" + std::to_string(g);
    group.queue = leaves[static_cast<size_t>(random.Below(static_cast<int>(leaves.size())))]->name;
    group.priority_class = g % 7 == 0 ? "inference" : "train";
    group.pool = PoolName(g % spec.node_pools, spec.node_pools);
    const int shape = random.Below(10);
    int gpus = 1;
    if (shape >= 6) {
      group.min_member = 2 << random.Below(4);
      gpus = 1 + random.Below(spec.gpus_per_node);
    }
    for (int k = 0; k < group.min_member; ++k) {
      PlannedPod pod;
      pod.namespace_name = group.namespace_name;
      pod.name = group.name + "-" + std::to_string(k);
      pod.queue = group.queue;
      pod.pod_group = group.name;
      pod.priority_class = group.priority_class;
      pod.pool = group.pool;
      pod.cpu_milli = kPodCpuMilli;
      pod.memory_bytes = kPodMemoryBytes;
      if (shape == 2) {
        pod.gpu_fraction = "0.25";
      } else if (shape == 3) {
        pod.gpu_memory_mib = kGpuMemoryRequestMib;
      } else if (shape != 4) {
        pod.gpus = gpus;
      }
      plan.pods.push_back(std::move(pod));
    }
    plan.pod_groups.push_back(std::move(group));
  }
}

}  // namespace quotient::generate::plan
