// A synthetic cluster for benchmarks: N nodes of 8 GPUs, a department/project queue tree,
// running pods filling most of the GPUs, and pending pod groups of mixed shapes. Seeded and
// deterministic: the same parameters give the same objects.
#pragma once

#include <cstdint>

#include "core/objects.h"

namespace quotient::bench {

struct SyntheticClusterSpec {
  int nodes = 1000;
  int gpus_per_node = 8;
  int departments = 10;
  int projects_per_department = 10;
  int running_pods = 10000;
  int pending_groups = 2000;
  uint64_t seed = 42;
};

core::ClusterObjects MakeSyntheticCluster(const SyntheticClusterSpec& spec);

// KAI's ReclaimLargeJobs benchmark shape (pkg/scheduler/actions/reclaim): N nodes of 8 GPUs filled
// by N x 8 running one-GPU jobs in queue-0 (deserved 0, weight 0), and one pending job of N / 10
// pods x 8 GPUs in queue-1 (deserved N x 8, weight 0) that must reclaim whole nodes.
core::ClusterObjects MakeReclaimLargeJobs(int nodes);

}  // namespace quotient::bench
