// The objects one KAI scheduler instance sees when it serves one node pool (KAI's shard): its
// Nodes, Queues and PodGroups are those whose node-pool label equals the pool (the default pool,
// "", has no such label); a pod bound to a node follows the node, a pending pod its PodGroup (the
// `pod-group-name` annotation), a pod with neither its own label. What `quotient schedule
// --node-pool` schedules, as a KAI deployment with one scheduler per pool would.
#pragma once

#include "core/cluster_model.h"
#include "core/objects.h"

namespace quotient::core {

// Whether an object with these labels is in the shard.
bool InShard(const Labels& labels, const PodShard& shard);

// The objects of `objects` in the shard (PriorityClasses and PodDisruptionBudgets are shared).
ClusterObjects ObjectsOfShard(ClusterObjects objects, const PodShard& shard);

}  // namespace quotient::core
