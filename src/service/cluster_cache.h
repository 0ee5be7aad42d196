// The scheduler's view of the cluster: one informer per kind it reads (Nodes, Pods, Queues,
// PodGroups, PriorityClasses, PodDisruptionBudgets), each decoding on arrival into the core objects
// a cycle needs, so a cycle copies ready objects instead of parsing anything. Objects come out
// sorted by key, so cycles are deterministic whatever order the watch events came in.
//
// Decisions the API server has not confirmed yet live in an overlay: a pod we asked to bind
// counts as bound to its node until the pod's own update arrives (or the bind fails), so the next
// cycle never gives its resources away twice.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/cluster_model.h"
#include "core/objects.h"
#include "kubeclient/client.h"
#include "kubeclient/informer.h"

namespace quotient::service {

// Which node pool (KAI's shard) this scheduler instance serves: Nodes, Queues and PodGroups
// whose `label_key` label equals `value`; the default shard (value "") serves those without the
// label. Pods follow: a bound pod belongs where its node does, a pending pod where its PodGroup
// does (a pod without one, by its own label).
struct Shard {
  std::string label_key = "kai.scheduler/node-pool";
  std::string value;
  // The API label selector for the shard's Nodes, Queues and PodGroups.
  std::string Selector() const { return value.empty() ? "!" + label_key : label_key + "=" + value; }
};

class ClusterCache {
 public:
  // `model_options` says how objects are read for the incremental model (scheduler name and
  // the queue / node-pool label keys; `now` is given per snapshot).
  explicit ClusterCache(kubeclient::Client& client, Shard shard = {},
                        core::SnapshotOptions model_options = {});

  void Start();
  void Stop();
  // Waits until every informer has listed once; false after `timeout`.
  bool WaitForSync(std::chrono::milliseconds timeout);

  // The objects for one cycle, with the overlay applied.
  core::ClusterObjects Objects() const;

  // The snapshot for one cycle at `now`, from the incremental model the watch events keep
  // (core::ClusterModel: nodes and pods are read when they change, not every cycle), with the
  // overlay applied, other shards' pods left out, and the pods in `held_back` (failed binds in
  // back-off) gated for this cycle. The same snapshot BuildSnapshot(Objects()) would give.
  // Shared with the model, which patches it for the next cycle once the holder lets go.
  std::shared_ptr<const core::SnapshotBuild> Snapshot(core::Time now,
                                                      const std::set<std::string>& held_back);

  // Whether a PodGroup wants its pods marked unschedulable (KAI's markUnschedulable; true for
  // an unknown group).
  bool MarksUnschedulable(const std::string& pod_group) const;
  // The remediator's note on a PodGroup whose pods it drained for a node fault
  // (core::kDrainedForFaultAnnotation), "" when none.
  std::string DrainedForFault(const std::string& pod_group) const;

  // Overlay: `pod` (ns/name) is being bound to `node`, holding the shared GPU `gpu_groups`.
  void AssumeBound(const std::string& pod, const std::string& node,
                   const std::vector<std::string>& gpu_groups = {});
  // The bind failed: the pod is pending again.
  void ForgetAssumed(const std::string& pod);

  // Called (from informer threads) whenever anything changed; wakes the cycle loop.
  void OnChange(std::function<void()> notify);

  // The uid of a cached pod ("" if unknown), for bind and eviction preconditions.
  std::string PodUid(const std::string& pod) const;
  // A cached pod as decoded (annotations included); nullopt if unknown.
  std::optional<core::PodObject> PodObject(const std::string& pod) const;
  // Every cached pod, of every shard and scheduler (the GPU reservation collector's view).
  std::vector<core::PodObject> AllPods() const;
  // The GPUs the node agent reports unhealthy on a cached node (its gpu-health annotation, as
  // decoded; the snapshot keeps only their number), for the dashboard.
  std::vector<core::UnhealthyGpu> UnhealthyGpus(const std::string& node) const;

 private:
  template <typename T>
  void Watch(kubeclient::Informer<T>& informer);
  // Keeps the model in step with the informer's events.
  template <typename T>
  void Track(kubeclient::Informer<T>& informer);
  // A pod now shows `node`: drops its assumption; true when it was bound where we assumed.
  bool SettleAssumption(const std::string& pod, const std::string& node);

  // Whether a pod belongs to this shard, given the shard's nodes and PodGroups (the rule
  // core::PodShard states, for Objects(); the model applies it itself).
  bool InShard(const core::PodObject& pod) const;

  Shard shard_;
  kubeclient::Informer<core::NodeObject> nodes_;
  kubeclient::Informer<core::PodObject> pods_;
  kubeclient::Informer<core::QueueObject> queues_;
  kubeclient::Informer<core::PodGroupObject> pod_groups_;
  kubeclient::Informer<core::PriorityClassObject> priority_classes_;
  kubeclient::Informer<core::PodDisruptionBudgetObject> budgets_;

  mutable std::mutex model_mu_;  // guards model_ (informer threads write, the cycle reads)
  core::ClusterModel model_;

  mutable std::mutex mu_;
  std::map<std::string, std::string> assumed_;                      // pod -> node
  std::map<std::string, std::vector<std::string>> assumed_groups_;  // fractional pods' groups
  std::function<void()> notify_;
};

}  // namespace quotient::service
