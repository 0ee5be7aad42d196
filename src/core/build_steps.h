// The steps of BuildSnapshot, one file each; internal to the core library.
#pragma once

#include <functional>
#include <map>
#include <optional>
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

// jobs.cc: pod groups (explicit and implicit); sets Pod::job. BuildJobs does it for all; the
// pieces after it, for one job, are what ClusterModel's patches use.
std::vector<Job> BuildJobs(const std::vector<const PodGroupObject*>& pod_groups,
                           const std::vector<PriorityClassObject>& priority_classes,
                           const SnapshotOptions& options, const std::vector<Queue>& queues,
                           std::vector<Pod>& pods, Reporter& reporter);
struct PriorityTable {
  std::map<std::string, int32_t> by_name;
  std::optional<int32_t> global_default;
  // The class's value; a missing or unknown class gets the global default, else 50 (a warning
  // names `meta` when the class does not exist).
  int32_t Resolve(const std::string& class_name, const ObjectMeta& meta, std::string_view kind,
                  Reporter& reporter) const;
};
PriorityTable BuildPriorityTable(const std::vector<PriorityClassObject>& classes);
Job JobFromPodGroup(const PodGroupObject& o, const SnapshotOptions& options,
                    const PriorityTable& priorities, Reporter& reporter);
// The group of one KAI's pod-grouper would make for a pod of ours without a PodGroup.
Job ImplicitJob(const Pod& pod, const SnapshotOptions& options, const PriorityTable& priorities,
                Reporter& reporter);
// The group holding the pods that name a PodGroup that does not exist, made from the first of
// them (by key): pending, with a problem saying so, and a warning on that pod.
Job JobForMissingGroup(const Pod& pod, const SnapshotOptions& options,
                       const PriorityTable& priorities, Reporter& reporter);
// Sets job.queue, or adds a problem and a warning (naming the file `source()` gives) when the
// queue is missing, unusable or not a leaf.
void ResolveJobQueue(Job& job, const std::vector<Queue>& queues,
                     const std::function<std::string()>& source, Reporter& reporter);
// Adds pod `index` to the job and its leaf subgroup (a problem on the pod if there is none).
void AttachPod(Job& job, Index index, Pod& pod);

// budgets.cc: PodDisruptionBudgets with the pods they cover; sets Pod::budgets.
std::vector<DisruptionBudget> BuildBudgets(const std::vector<PodDisruptionBudgetObject>& objects,
                                           std::vector<Pod>& pods, Reporter& reporter);

// gpu_occupancy.cc: node pods, used resources and GPU devices from the pods holding resources.
void PlacePodsOnNodes(std::vector<Node>& nodes, std::vector<Pod>& pods);
// The same for one node `n` (as read: no pods yet) and the pods on it, sorted.
void PlaceOnNode(Node& node, Index n, std::vector<Pod>& pods, const std::vector<Index>& on_node);

// snapshot_builder.cc: the steps after the nodes, pods and queues are read, which BuildSnapshot
// and ClusterModel share: jobs, budgets, node occupancy, the smallest GPU memory.
void LinkSnapshot(Snapshot& s, const std::vector<const PodGroupObject*>& pod_groups,
                  const std::vector<PriorityClassObject>& priority_classes,
                  const std::vector<PodDisruptionBudgetObject>& budgets,
                  const SnapshotOptions& options, Reporter& reporter);

}  // namespace quotient::core::build
