// ClusterPlan: a synthetic cluster as plain data, before it becomes Kubernetes objects.
//
// Planning decides everything (which node each running pod sits on, its queue, its GPU group);
// writing (cluster_generator.h) only turns each entry into one object. Units follow the Kubernetes
// objects they become: GPUs as devices, CPU in millicores, memory in bytes. The plan is cheap next
// to the JSON it turns into, so even the largest preset is planned whole and written streaming.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "generate/cluster_spec.h"

namespace quotient::generate {

struct PlannedPriorityClass {
  std::string name;
  int32_t value = 0;
};

// One queue. CPU and memory are always unlimited (quota and limit -1) with weight 1, as in
// bench/synthetic_cluster.h; only the GPU numbers vary.
struct PlannedQueue {
  std::string name;
  std::string parent;  // empty for a top-level (department) queue
  int64_t gpu_quota = 0;
  std::optional<int64_t> gpu_limit;  // nullopt = unlimited (-1)
  int64_t gpu_over_quota_weight = 1;
};

struct PlannedNode {
  std::string name;
  int gpus = 0;
  int64_t gpu_memory_mib = 0;
  std::string pool;  // kai.scheduler/node-pool; empty = no label
};

struct PlannedPodGroup {
  std::string namespace_name;
  std::string name;
  std::string queue;
  std::string priority_class;  // empty = none (KAI's default priority 50)
  std::string pool;
  int min_member = 1;
};

// One pod with one container. Its GPU ask is whole devices (`gpus`), a fraction of one shared
// device (`gpu_fraction`), or GPU memory (`gpu_memory_mib`), never two of them.
struct PlannedPod {
  std::string namespace_name;
  std::string name;
  std::string queue;      // the kai.scheduler/queue label
  std::string pod_group;  // the pod-group-name annotation; empty = an implicit group of one
  std::string priority_class;
  std::string pool;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int gpus = 0;
  std::string gpu_fraction;    // e.g. "0.5"; empty = none
  int64_t gpu_memory_mib = 0;  // 0 = none
  std::string gpu_group;       // runai-gpu-group of a running shared pod
  std::string node;            // spec.nodeName; set = Running, empty = Pending
};

// In output order: priority classes, queues, nodes, pod groups, pods (running, then pending).
struct ClusterPlan {
  std::vector<PlannedPriorityClass> priority_classes;
  std::vector<PlannedQueue> queues;
  std::vector<PlannedNode> nodes;
  std::vector<PlannedPodGroup> pod_groups;
  std::vector<PlannedPod> pods;
};

// The plan of `spec` (validated first). An error names what is wrong: a field out of range, or
// running pods that need more room than the nodes have.
Result<ClusterPlan> PlanCluster(const ClusterSpec& spec);

}  // namespace quotient::generate
