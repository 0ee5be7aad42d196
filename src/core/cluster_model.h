// ClusterModel: the cluster kept between cycles and changed one object at a time (a service's
// watch events), so that a change costs in proportion to itself.
//
// Nodes and pods, the bulk of a cluster, are read into their snapshot form (NodeFromObject,
// PodFromObject: requests summed, GPU sharing parsed, statuses and labels interpreted) when they
// arrive, and kept by key. Taking a cycle's snapshot then only links ready pieces — queues,
// pod groups, GPU occupancy and indices — with no parsing and no sorting (the maps are ordered
// by key). Snapshot() gives exactly what BuildSnapshot gives for the same objects.
#pragma once

#include <functional>
#include <map>
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

class ClusterModel {
 public:
  explicit ClusterModel(SnapshotOptions options);
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
    std::function<bool(const PodObject&)> include;  // empty: every pod
    // Pods the scheduler bound whose binding the model has not seen yet: on this node.
    std::map<std::string, std::string> assumed_nodes;
    // Pods sitting this cycle out (a bind backing off): scheduling-gated.
    std::set<std::string> gated;
  };

  // The snapshot for a cycle at `now`.
  SnapshotBuild Snapshot(Time now) const { return Snapshot(now, CycleView{}); }
  SnapshotBuild Snapshot(Time now, const CycleView& view) const;

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

  SnapshotOptions options_;
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
};

}  // namespace quotient::core
