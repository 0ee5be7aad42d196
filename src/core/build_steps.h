// The steps of BuildSnapshot, one file each; internal to the core library.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/snapshot.h"
#include "core/snapshot_builder.h"

namespace quotient::core::build {

// Collects warnings for one build.
class Reporter {
 public:
  void Warn(const ObjectMeta& meta, std::string_view kind, std::string field, std::string message) {
    Diagnostic d;
    d.severity = Diagnostic::Severity::kWarning;
    d.source = meta.source;
    d.object = std::string(kind) + " " + meta.Key();
    d.field = std::move(field);
    d.message = std::move(message);
    diagnostics.push_back(std::move(d));
  }
  std::vector<Diagnostic> diagnostics;
};

// queue_tree.cc: sorted queues with parents, children, and problems propagated to subtrees.
std::vector<Queue> BuildQueues(const std::vector<QueueObject>& objects, Reporter& reporter);

// nodes_and_pods.cc: one object's reading (what ClusterModel keeps per object), and all of them
// sorted by name / key.
Node NodeFromObject(const NodeObject& o, const SnapshotOptions& options, Reporter& reporter);
Pod PodFromObject(const PodObject& o, const SnapshotOptions& options, Reporter& reporter);
// A pod's status from its phase, deletion, whether it has a node and whether it is gated.
PodStatus StatusOf(PodPhase phase, bool deleting, bool has_node, bool gated);
std::vector<Node> BuildNodes(const std::vector<NodeObject>& objects, const SnapshotOptions& options,
                             Reporter& reporter);
std::vector<Pod> BuildPods(const std::vector<PodObject>& objects, const SnapshotOptions& options,
                           Reporter& reporter);

// jobs.cc: pod groups (explicit and implicit); sets Pod::job.
std::vector<Job> BuildJobs(const std::vector<const PodGroupObject*>& pod_groups,
                           const std::vector<PriorityClassObject>& priority_classes,
                           const SnapshotOptions& options, const std::vector<Queue>& queues,
                           std::vector<Pod>& pods, Reporter& reporter);

// budgets.cc: PodDisruptionBudgets with the pods they cover; sets Pod::budgets.
std::vector<DisruptionBudget> BuildBudgets(const std::vector<PodDisruptionBudgetObject>& objects,
                                           std::vector<Pod>& pods, Reporter& reporter);

// gpu_occupancy.cc: node pods, used resources and GPU devices from the pods holding resources.
void PlacePodsOnNodes(std::vector<Node>& nodes, std::vector<Pod>& pods);

// snapshot_builder.cc: the steps after the nodes, pods and queues are read, which BuildSnapshot
// and ClusterModel share: jobs, budgets, node occupancy, the smallest GPU memory.
void LinkSnapshot(Snapshot& s, const std::vector<const PodGroupObject*>& pod_groups,
                  const std::vector<PriorityClassObject>& priority_classes,
                  const std::vector<PodDisruptionBudgetObject>& budgets,
                  const SnapshotOptions& options, Reporter& reporter);

}  // namespace quotient::core::build
