// What a pod counts for in fair share: its GPU, CPU and memory in ShareVector units.
//
// GPU quota follows KAI (kai-reference §3.1): whole GPUs count their devices; a fraction counts
// portion x devices; gpu-memory counts the portion it converts to on its node, or, while pending,
// memory / (the cluster's smallest GPU memory) per device; MIG instances count <g> GPU units each.
#pragma once

#include "core/resources.h"
#include "core/snapshot.h"

namespace quotient::core {

// The pod's share vector; `node` is the node it is (or would be) on, or nullptr while pending.
ShareVector QuotaOf(const Pod& pod, const Node* node, const Snapshot& snapshot);

// Fair-share capacity: allocatable of usable nodes (whole GPUs plus MIG GPU units) minus what
// running pods of other schedulers hold there (kai-subtleties §6).
ShareVector ClusterCapacity(const Snapshot& snapshot);

}  // namespace quotient::core
