#include "service/cluster_cache.h"

#include <spdlog/spdlog.h>

#include "core/node_health.h"
#include "core/snapshot_builder.h"
#include "service/object_decoders.h"

namespace quotient::service {
namespace {

kubeclient::ReflectorOptions For(kubeclient::Resource resource, std::string label_selector = "") {
  kubeclient::ReflectorOptions options;
  options.resource = std::move(resource);
  options.label_selector = std::move(label_selector);
  return options;
}

kubeclient::Resource PriorityClasses() {
  return {"scheduling.k8s.io", "v1", "priorityclasses", false};
}

template <typename T>
std::vector<T> Values(const kubeclient::Informer<T>& informer) {
  std::vector<T> out;
  for (const auto& cached : informer.indexer().List()) out.push_back(cached->value);
  return out;
}

// An object we cannot read is left out of every cycle: say so where an operator looks.
void LogSkipped(const std::string& error) { spdlog::warn("skipped: {}", error); }

// A deleted object leaves the model by its key.
void RemoveFrom(core::ClusterModel& m, const core::NodeObject& o) { m.RemoveNode(o.meta.name); }
void RemoveFrom(core::ClusterModel& m, const core::PodObject& o) { m.RemovePod(o.meta.Key()); }
void RemoveFrom(core::ClusterModel& m, const core::QueueObject& o) { m.RemoveQueue(o.meta.name); }
void RemoveFrom(core::ClusterModel& m, const core::PodGroupObject& o) {
  m.RemovePodGroup(o.meta.Key());
}
void RemoveFrom(core::ClusterModel& m, const core::PriorityClassObject& o) {
  m.RemovePriorityClass(o.meta.name);
}
void RemoveFrom(core::ClusterModel& m, const core::PodDisruptionBudgetObject& o) {
  m.RemoveBudget(o.meta.Key());
}

}  // namespace

ClusterCache::ClusterCache(kubeclient::Client& client, Shard shard,
                           core::SnapshotOptions model_options)
    : shard_(std::move(shard)),
      nodes_(client, For(kubeclient::resources::Nodes(), shard_.Selector()), DecodeNodeObject),
      pods_(client, For(kubeclient::resources::Pods()), DecodePodObject),
      queues_(client, For(kubeclient::resources::Queues(), shard_.Selector()), DecodeQueueObject),
      pod_groups_(client, For(kubeclient::resources::PodGroups(), shard_.Selector()),
                  DecodePodGroupObject),
      priority_classes_(client, For(PriorityClasses()), DecodePriorityClassObject),
      budgets_(client, For(kubeclient::resources::PodDisruptionBudgets()),
               DecodePodDisruptionBudgetObject),
      model_(std::move(model_options), core::PodShard{shard_.label_key, shard_.value}) {
  // The model first, so that a cycle woken by a change below already sees it.
  Track(nodes_);
  Track(pods_);
  Track(queues_);
  Track(pod_groups_);
  Track(priority_classes_);
  Track(budgets_);
  Watch(nodes_);
  Watch(queues_);
  Watch(pod_groups_);
  Watch(priority_classes_);
  Watch(budgets_);
  // Pods also settle the overlay: once a pod's own state shows a node (or the pod is gone),
  // the assumption has served its purpose. Only changes that alter the scheduling picture wake
  // the loop: a pod confirming the node we bound it to, or a bound pod starting to run, does
  // not (with thousands of binds in flight, each confirmation would otherwise cost a cycle).
  pods_.OnDecodeError(LogSkipped);
  pods_.AddHandlers({[this](const auto& pod) {
                       if (SettleAssumption(pod->key, pod->value.node_name)) return;
                       if (notify_) notify_();
                     },
                     [this](const auto& old, const auto& pod) {
                       bool confirmed = SettleAssumption(pod->key, pod->value.node_name);
                       bool terminal_now = (pod->value.phase == core::PodPhase::kSucceeded ||
                                            pod->value.phase == core::PodPhase::kFailed) &&
                                           pod->value.phase != old->value.phase;
                       bool pending = pod->value.node_name.empty();
                       bool moved = old->value.node_name != pod->value.node_name && !confirmed;
                       if ((pending || moved || terminal_now) && notify_) notify_();
                     },
                     [this](const auto& pod) {
                       {
                         std::lock_guard lock(mu_);
                         assumed_.erase(pod->key);
                         assumed_groups_.erase(pod->key);
                       }
                       if (notify_) notify_();
                     }});
}

template <typename T>
void ClusterCache::Track(kubeclient::Informer<T>& informer) {
  informer.AddHandlers({[this](const auto& object) {
                          std::lock_guard lock(model_mu_);
                          model_.Upsert(object->value);
                        },
                        [this](const auto&, const auto& object) {
                          std::lock_guard lock(model_mu_);
                          model_.Upsert(object->value);
                        },
                        [this](const auto& object) {
                          std::lock_guard lock(model_mu_);
                          RemoveFrom(model_, object->value);
                        }});
}

template <typename T>
void ClusterCache::Watch(kubeclient::Informer<T>& informer) {
  informer.OnDecodeError(LogSkipped);
  auto changed = [this](const auto&...) {
    if (notify_) notify_();
  };
  informer.AddHandlers({changed, changed, changed});
}

bool ClusterCache::SettleAssumption(const std::string& pod, const std::string& node) {
  if (node.empty()) return false;
  std::lock_guard lock(mu_);
  auto it = assumed_.find(pod);
  if (it == assumed_.end()) return false;
  bool as_assumed = it->second == node;
  assumed_.erase(it);
  assumed_groups_.erase(pod);
  return as_assumed;
}

void ClusterCache::OnChange(std::function<void()> notify) { notify_ = std::move(notify); }

void ClusterCache::Start() {
  nodes_.Start();
  pods_.Start();
  queues_.Start();
  pod_groups_.Start();
  priority_classes_.Start();
  budgets_.Start();
}

void ClusterCache::Stop() {
  nodes_.Stop();
  pods_.Stop();
  queues_.Stop();
  pod_groups_.Stop();
  priority_classes_.Stop();
  budgets_.Stop();
}

bool ClusterCache::WaitForSync(std::chrono::milliseconds timeout) {
  return nodes_.WaitForSync(timeout) && pods_.WaitForSync(timeout) &&
         queues_.WaitForSync(timeout) && pod_groups_.WaitForSync(timeout) &&
         priority_classes_.WaitForSync(timeout) && budgets_.WaitForSync(timeout);
}

core::ClusterObjects ClusterCache::Objects() const {
  // The overlay is copied BEFORE the pods are listed: a bind confirmed in between then shows in
  // the listed pod (it has its node) or in the copy (the pod does not yet) — never in neither,
  // which would let the cycle bind the pod a second time.
  std::map<std::string, std::string> assumed;
  std::map<std::string, std::vector<std::string>> assumed_groups;
  {
    std::lock_guard lock(mu_);
    assumed = assumed_;
    assumed_groups = assumed_groups_;
  }
  core::ClusterObjects objects;
  objects.nodes = Values(nodes_);
  objects.pods = Values(pods_);
  objects.queues = Values(queues_);
  objects.pod_groups = Values(pod_groups_);
  objects.priority_classes = Values(priority_classes_);
  objects.pod_disruption_budgets = Values(budgets_);
  if (!assumed.empty()) {
    for (core::PodObject& pod : objects.pods) {
      auto it = assumed.find(pod.meta.Key());
      if (it == assumed.end() || !pod.node_name.empty()) continue;
      pod.node_name = it->second;
      if (auto groups = assumed_groups.find(it->first); groups != assumed_groups.end()) {
        // As the binder labels it: one device, runai-gpu-group; several, one label each.
        const std::string key(core::kGpuGroupLabel);
        if (groups->second.size() == 1) {
          pod.meta.labels.emplace(key, groups->second.front());
        } else {
          for (const std::string& g : groups->second) pod.meta.labels.emplace(key + "/" + g, g);
        }
      }
    }
  }
  std::erase_if(objects.pods, [this](const core::PodObject& pod) { return !InShard(pod); });
  return objects;
}

std::shared_ptr<const core::SnapshotBuild> ClusterCache::Snapshot(
    core::Time now, const std::set<std::string>& held_back) {
  // The overlay is copied before the model is read, as in Objects().
  core::ClusterModel::CycleView view;
  {
    std::lock_guard lock(mu_);
    view.assumed_nodes = assumed_;
    view.assumed_gpu_groups = assumed_groups_;
  }
  view.gated = held_back;
  std::lock_guard lock(model_mu_);
  return model_.Snapshot(now, view);
}

bool ClusterCache::MarksUnschedulable(const std::string& pod_group) const {
  auto group = pod_groups_.indexer().Get(pod_group);
  return group == nullptr || group->value.mark_unschedulable;
}

std::string ClusterCache::DrainedForFault(const std::string& pod_group) const {
  auto group = pod_groups_.indexer().Get(pod_group);
  if (group == nullptr) return "";
  auto it = group->value.meta.annotations.find(std::string(core::kDrainedForFaultAnnotation));
  return it == group->value.meta.annotations.end() ? "" : it->second;
}

bool ClusterCache::InShard(const core::PodObject& pod) const {
  if (!pod.node_name.empty()) return nodes_.indexer().Get(pod.node_name) != nullptr;
  auto group = pod.meta.annotations.find("pod-group-name");
  if (group != pod.meta.annotations.end()) {
    return pod_groups_.indexer().Get(pod.meta.namespace_name + "/" + group->second) != nullptr;
  }
  auto label = pod.meta.labels.find(shard_.label_key);
  return label == pod.meta.labels.end() ? shard_.value.empty() : label->second == shard_.value;
}

void ClusterCache::AssumeBound(const std::string& pod, const std::string& node,
                               const std::vector<std::string>& gpu_groups) {
  std::lock_guard lock(mu_);
  assumed_[pod] = node;
  if (!gpu_groups.empty()) assumed_groups_[pod] = gpu_groups;
}

void ClusterCache::ForgetAssumed(const std::string& pod) {
  std::lock_guard lock(mu_);
  assumed_.erase(pod);
  assumed_groups_.erase(pod);
}

std::string ClusterCache::PodUid(const std::string& pod) const {
  auto cached = pods_.indexer().Get(pod);
  return cached ? cached->uid : "";
}

std::vector<core::UnhealthyGpu> ClusterCache::UnhealthyGpus(const std::string& node) const {
  auto cached = nodes_.indexer().Get(node);
  return cached ? cached->value.unhealthy_gpus : std::vector<core::UnhealthyGpu>{};
}

std::optional<core::PodObject> ClusterCache::PodObject(const std::string& pod) const {
  auto cached = pods_.indexer().Get(pod);
  if (!cached) return std::nullopt;
  return cached->value;
}

std::vector<core::PodObject> ClusterCache::AllPods() const { return Values(pods_); }

}  // namespace quotient::service
