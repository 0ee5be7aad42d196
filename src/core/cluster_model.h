// ClusterModel: the cluster kept between cycles and changed one object at a time (a service's
// watch events), so that a change costs in proportion to itself.
//
// Nodes and pods, the bulk of a cluster, are read into their snapshot form (NodeFromObject,
// PodFromObject: requests summed, GPU sharing parsed, statuses and labels interpreted) when they
// arrive, and kept by key. Taking a cycle's snapshot then only links ready pieces — queues,
// pod groups, GPU occupancy and indices — with no parsing and no sorting (the maps are ordered
// by key). Snapshot() gives exactly what BuildSnapshot gives for the same objects.
//
// Between cycles the model keeps the last snapshot and notes which pods, nodes and pod groups
// changed; the next snapshot is that one patched (cluster_model_patch.cc): the changed pods read
// again, the jobs and nodes they left or joined linked again, indices renumbered where pods or
// jobs came or went. A cycle's start then costs what changed, not the cluster (the service's
// cycles under churn: kai-reference §10.3). Changes to queues, PriorityClasses, budgets or the
// set of nodes, and a few rare shapes (a pod naming a PodGroup that does not exist), take the
// full build instead.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/snapshot.h"
#include "core/snapshot_builder.h"

namespace quotient::core {

// Which node pool (KAI's shard) the pods of a model belong to, when the model serves one: a pod
// on a node belongs where the node does (the model is given only the shard's nodes), a pending
// pod where its PodGroup does (likewise), a pod with neither by its own `label_key` label
// (absent for the default shard, whose `value` is "").
struct PodShard {
  std::string label_key;
  std::string value;
};

class ClusterModel {
 public:
  // Without a shard every pod is in the snapshot.
  explicit ClusterModel(SnapshotOptions options, std::optional<PodShard> shard = std::nullopt);
  // Movable, not copyable: the pod index points into the model's own map.
  ClusterModel(const ClusterModel&) = delete;
  ClusterModel& operator=(const ClusterModel&) = delete;
  ClusterModel(ClusterModel&&) = default;
  ClusterModel& operator=(ClusterModel&&) = default;

  // Adds or replaces an object (by key: "ns/name", or name for cluster-scoped kinds).
  void Upsert(NodeObject node);
  void Upsert(PodObject pod);
  void Upsert(QueueObject queue);
  void Upsert(PodGroupObject group);
  void Upsert(PriorityClassObject priority_class);
  void Upsert(PodDisruptionBudgetObject budget);
  // Removes an object; unknown keys are ignored (a delete for something never seen).
  void RemoveNode(const std::string& name);
  void RemovePod(const std::string& key);
  void RemoveQueue(const std::string& name);
  void RemovePodGroup(const std::string& key);
  void RemovePriorityClass(const std::string& name);
  void RemoveBudget(const std::string& key);

  // A cycle's own view of the pods, without changing the model. Both maps patch pods the model
  // has without a node (keys it lacks, or pods it already sees on a node, are left as they are);
  // a patched pod is the model's reading with its node or gate changed, not read again, so a
  // cycle with thousands of binds in flight costs what one without does.
  struct CycleView {
    // Pods the scheduler bound whose binding the model has not seen yet: on this node.
    std::map<std::string, std::string> assumed_nodes;
    // Of those, the fractional ones: the GPU groups the bind gives them, until their
    // runai-gpu-group labels arrive (so the next cycle sees them on the right shared device).
    std::map<std::string, std::vector<std::string>> assumed_gpu_groups;
    // Pods sitting this cycle out (a bind backing off): scheduling-gated.
    std::set<std::string> gated;
  };

  // The snapshot for a cycle at `now`: the last one patched where things changed since, or
  // built afresh (the first time, after changes a patch does not cover, or while someone still
  // holds the last one). Diagnostics: those of a full build, though after a patch not in its
  // order (the changed objects' warnings come last).
  std::shared_ptr<const SnapshotBuild> Snapshot(Time now, const CycleView& view = {});
  // Built from every object, whatever the last snapshot was (what a patch must equal).
  SnapshotBuild FullSnapshot(Time now, const CycleView& view = {}) const;
  // Whether the last Snapshot() was patched (for tests and benchmarks).
  bool last_was_patched() const { return last_was_patched_; }

  // One pod or pod group as last seen; nullptr when unknown.
  const PodObject* FindPod(const std::string& key) const;
  const std::map<std::string, PodGroupObject>& pod_groups() const { return pod_groups_; }
  // The objects themselves, sorted by key (what BuildSnapshot would be given).
  ClusterObjects Objects() const;

  size_t node_count() const { return nodes_.size(); }
  size_t pod_count() const { return pods_.size(); }

 private:
  // An object as last seen and as read (one map entry for both: one lookup per change).
  template <typename Object, typename Resolved>
  struct Entry {
    Object object;
    Resolved resolved;
    std::vector<Diagnostic> warnings;  // from reading the object
  };

  // What changed since the last snapshot, for the next patch.
  struct Changes {
    std::set<std::string> pods;                 // upserted or removed
    std::set<std::string> nodes;                // upserted, known before
    std::set<std::string> groups;               // pod groups upserted or removed
    std::set<std::string> groups_came_or_went;  // of those, the ones added or removed
    bool everything = true;                     // anything else: no patch, a full build
  };

  // "ns/group" for a pod naming a PodGroup, else "".
  static std::string GroupKeyOf(const Pod& pod);
  void UnlinkFromGroup(const Pod& pod);  // from pods_naming_group_
  bool Included(const PodObject& object, const Pod& pod) const;
  // The view's node or gate on a pod the API server shows without a node.
  static void ApplyView(Pod& pod, const PodObject& object, const CycleView& view);
  // Patches `build` (the last snapshot) for what changed; false (with `build` left half done)
  // when the changes need a full build.
  // `patches`: the view as pod -> assumed node (nullopt: gated only), as last_view_ keeps it.
  using ViewPatches = std::map<std::string, std::optional<std::string>>;
  static ViewPatches PatchesOf(const CycleView& view);
  bool Patch(SnapshotBuild& build, Time now, const CycleView& view, const ViewPatches& patches);
  // Whether every job of a full build is one the patches can remake: a PodGroup's, or the
  // implicit group of one pod (not a group for pods naming a missing PodGroup, nor a renamed one).
  static bool JobsArePatchable(const core::Snapshot& s);

  SnapshotOptions options_;
  std::optional<PodShard> shard_;
  std::map<std::string, Entry<NodeObject, Node>> nodes_;
  using PodEntry = Entry<PodObject, Pod>;
  std::map<std::string, PodEntry> pods_;  // in key order: the snapshot's pod order
  // The same entries by key, hashed: a change finds its entry in one probe instead of walking a
  // 170,000-entry tree (most of an update's cost). Keys view the map's own (stable) keys.
  std::unordered_map<std::string_view, PodEntry*> pod_index_;
  std::map<std::string, QueueObject> queues_;
  std::map<std::string, PodGroupObject> pod_groups_;
  std::map<std::string, PriorityClassObject> priority_classes_;
  std::map<std::string, PodDisruptionBudgetObject> budgets_;
  // Pod group key -> the pods naming it (pod-group-name), so that a PodGroup's arrival or
  // departure re-reads them.
  std::map<std::string, std::set<std::string>> pods_naming_group_;

  Changes changes_;
  std::shared_ptr<SnapshotBuild> last_;
  // The last snapshot's view, pod -> assumed node (nullopt: gated only).
  ViewPatches last_view_;
  bool last_patchable_ = false;  // JobsArePatchable(last_)
  bool last_was_patched_ = false;
};

}  // namespace quotient::core
