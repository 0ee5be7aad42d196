// What a pod counts for in fair share: its GPU, CPU and memory in ShareVector units.
//
// GPU quota follows KAI (kai-reference §3.1): whole GPUs count their devices; a fraction counts
// portion x devices; gpu-memory counts the portion it converts to on its node, or, while pending,
// memory / (the cluster's smallest GPU memory) per device, uncapped as KAI's
// GpuMemoryAsGpuFraction; MIG instances count <g> GPU units each.
#pragma once

#include "core/resources.h"
#include "core/snapshot.h"

namespace quotient::core {

// The pod's share vector; `node` is the node it is (or would be) on, or nullptr while pending.
ShareVector QuotaOf(const Pod& pod, const Node* node, const Snapshot& snapshot);

// A pending pod's share vector in the queue capacity checks (over limit, non-preemptible over
// quota) made before any node is chosen: as QuotaOf, except that a gpu-memory request is sized
// by the cluster's largest GPU memory (KAI's capacity_policy.getRequiredQuota: the smallest
// fraction it could become, so a job is refused only when it is over on every node).
ShareVector CapacityCheckQuotaOf(const Pod& pod, const Snapshot& snapshot);

// Fair-share capacity: allocatable of usable nodes (whole GPUs plus MIG GPU units) minus what
// running pods of other schedulers hold there (kai-subtleties §6).
ShareVector ClusterCapacity(const Snapshot& snapshot);

}  // namespace quotient::core
