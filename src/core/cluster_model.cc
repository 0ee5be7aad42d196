#include "core/cluster_model.h"

#include <algorithm>

#include "core/build_steps.h"

namespace quotient::core {
namespace {

template <typename T>
std::vector<T> ValuesOf(const std::map<std::string, T>& objects) {
  std::vector<T> out;
  out.reserve(objects.size());
  for (const auto& [key, object] : objects) out.push_back(object);
  return out;
}

}  // namespace

ClusterModel::ClusterModel(SnapshotOptions options) : options_(std::move(options)) {}

void ClusterModel::Upsert(NodeObject node) {
  build::Reporter reporter;
  auto& entry = nodes_[node.meta.name];
  entry.resolved = build::NodeFromObject(node, options_, reporter);
  entry.warnings = std::move(reporter.diagnostics);
  entry.object = std::move(node);
}

void ClusterModel::Upsert(PodObject pod) {
  build::Reporter reporter;
  Pod resolved = build::PodFromObject(pod, options_, reporter);
  PodEntry* entry = nullptr;
  if (const auto it = pod_index_.find(resolved.key); it != pod_index_.end()) {
    entry = it->second;
  } else {
    const auto added = pods_.try_emplace(resolved.key).first;
    entry = &added->second;
    pod_index_.emplace(added->first, entry);
  }
  entry->resolved = std::move(resolved);
  entry->warnings = std::move(reporter.diagnostics);
  entry->object = std::move(pod);
}

void ClusterModel::Upsert(QueueObject queue) {
  std::string name = queue.meta.name;
  queues_[std::move(name)] = std::move(queue);
}

void ClusterModel::Upsert(PodGroupObject group) {
  std::string key = group.meta.Key();
  pod_groups_[std::move(key)] = std::move(group);
}

void ClusterModel::Upsert(PriorityClassObject priority_class) {
  std::string name = priority_class.meta.name;
  priority_classes_[std::move(name)] = std::move(priority_class);
}

void ClusterModel::Upsert(PodDisruptionBudgetObject budget) {
  std::string key = budget.meta.Key();
  budgets_[std::move(key)] = std::move(budget);
}

void ClusterModel::RemoveNode(const std::string& name) { nodes_.erase(name); }

void ClusterModel::RemovePod(const std::string& key) {
  if (pod_index_.erase(key) > 0) pods_.erase(key);
}

void ClusterModel::RemoveQueue(const std::string& name) { queues_.erase(name); }
void ClusterModel::RemovePodGroup(const std::string& key) { pod_groups_.erase(key); }
void ClusterModel::RemovePriorityClass(const std::string& name) { priority_classes_.erase(name); }
void ClusterModel::RemoveBudget(const std::string& key) { budgets_.erase(key); }

SnapshotBuild ClusterModel::Snapshot(Time now, const CycleView& view) const {
  // The steps and their order are BuildSnapshot's (snapshot_builder.cc), with the per-object
  // readings taken from the entries instead of made again.
  build::Reporter reporter;
  SnapshotBuild out;
  core::Snapshot& s = out.snapshot;
  s.now = now;
  s.scheduler_name = options_.scheduler_name;
  s.queues = build::BuildQueues(ValuesOf(queues_), reporter);
  const auto add_warnings = [&reporter](const std::vector<Diagnostic>& warnings) {
    reporter.diagnostics.insert(reporter.diagnostics.end(), warnings.begin(), warnings.end());
  };
  s.nodes.reserve(nodes_.size());
  for (const auto& [name, entry] : nodes_) {
    s.nodes.push_back(entry.resolved);
    add_warnings(entry.warnings);
  }
  s.pods.reserve(pods_.size());
  for (const auto& [key, entry] : pods_) {
    if (view.include && !view.include(entry.object)) continue;
    s.pods.push_back(entry.resolved);
    add_warnings(entry.warnings);
  }
  // The view's patches, found by key in the sorted pods (the maps are small next to them).
  const auto patch = [&](const std::string& key, const std::string* node, bool gated) {
    const auto seen = pod_index_.find(key);
    const Index at = s.FindPod(key);
    if (seen == pod_index_.end() || at == kNone) return;
    const PodObject& o = seen->second->object;
    if (!o.node_name.empty()) return;
    Pod& pod = s.pods[static_cast<size_t>(at)];
    if (node != nullptr) pod.node_name = *node;
    pod.status =
        build::StatusOf(o.phase, o.meta.deleting, node != nullptr, gated || o.scheduling_gated);
  };
  for (const auto& [key, node] : view.assumed_nodes) patch(key, &node, false);
  for (const std::string& key : view.gated) {
    if (!view.assumed_nodes.count(key)) patch(key, nullptr, true);
  }
  std::vector<const PodGroupObject*> groups;  // pointers: no copy of 20,000 objects per cycle
  groups.reserve(pod_groups_.size());
  for (const auto& [key, group] : pod_groups_) groups.push_back(&group);
  build::LinkSnapshot(s, groups, ValuesOf(priority_classes_), ValuesOf(budgets_), options_,
                      reporter);
  out.diagnostics = std::move(reporter.diagnostics);
  return out;
}

const PodObject* ClusterModel::FindPod(const std::string& key) const {
  const auto it = pod_index_.find(key);
  return it == pod_index_.end() ? nullptr : &it->second->object;
}

ClusterObjects ClusterModel::Objects() const {
  ClusterObjects o;
  o.nodes.reserve(nodes_.size());
  for (const auto& [name, entry] : nodes_) o.nodes.push_back(entry.object);
  o.pods.reserve(pods_.size());
  for (const auto& [key, entry] : pods_) o.pods.push_back(entry.object);
  o.queues = ValuesOf(queues_);
  o.pod_groups = ValuesOf(pod_groups_);
  o.priority_classes = ValuesOf(priority_classes_);
  o.pod_disruption_budgets = ValuesOf(budgets_);
  return o;
}

}  // namespace quotient::core
