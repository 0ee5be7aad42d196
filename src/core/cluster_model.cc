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

ClusterModel::ClusterModel(SnapshotOptions options, std::optional<PodShard> shard)
    : options_(std::move(options)), shard_(std::move(shard)) {}

void ClusterModel::Upsert(NodeObject node) {
  build::Reporter reporter;
  const auto [at, added] = nodes_.try_emplace(node.meta.name);
  // A node coming or going changes which pods a shard holds: a full build.
  if (added) changes_.everything = true;
  changes_.nodes.insert(node.meta.name);
  auto& entry = at->second;
  entry.resolved = build::NodeFromObject(node, options_, reporter);
  entry.warnings = std::move(reporter.diagnostics);
  entry.object = std::move(node);
}

void ClusterModel::Upsert(PodObject pod) {
  build::Reporter reporter;
  Pod resolved = build::PodFromObject(pod, options_, reporter);
  PodEntry* entry = nullptr;
  changes_.pods.insert(resolved.key);
  if (const auto it = pod_index_.find(resolved.key); it != pod_index_.end()) {
    entry = it->second;
    UnlinkFromGroup(entry->resolved);
  } else {
    const auto added = pods_.try_emplace(resolved.key).first;
    entry = &added->second;
    pod_index_.emplace(added->first, entry);
  }
  entry->resolved = std::move(resolved);
  entry->warnings = std::move(reporter.diagnostics);
  entry->object = std::move(pod);
  if (const std::string group = GroupKeyOf(entry->resolved); !group.empty()) {
    pods_naming_group_[group].insert(entry->resolved.key);
  }
}

void ClusterModel::Upsert(QueueObject queue) {
  changes_.everything = true;
  std::string name = queue.meta.name;
  queues_[std::move(name)] = std::move(queue);
}

void ClusterModel::Upsert(PodGroupObject group) {
  std::string key = group.meta.Key();
  changes_.groups.insert(key);
  if (!pod_groups_.count(key)) changes_.groups_came_or_went.insert(key);
  pod_groups_[std::move(key)] = std::move(group);
}

void ClusterModel::Upsert(PriorityClassObject priority_class) {
  changes_.everything = true;
  std::string name = priority_class.meta.name;
  priority_classes_[std::move(name)] = std::move(priority_class);
}

void ClusterModel::Upsert(PodDisruptionBudgetObject budget) {
  changes_.everything = true;
  std::string key = budget.meta.Key();
  budgets_[std::move(key)] = std::move(budget);
}

void ClusterModel::RemoveNode(const std::string& name) {
  if (nodes_.erase(name) > 0) changes_.everything = true;
}

void ClusterModel::RemovePod(const std::string& key) {
  const auto it = pod_index_.find(key);
  if (it == pod_index_.end()) return;
  changes_.pods.insert(key);
  UnlinkFromGroup(it->second->resolved);
  pod_index_.erase(it);
  pods_.erase(key);
}

void ClusterModel::RemoveQueue(const std::string& name) {
  if (queues_.erase(name) > 0) changes_.everything = true;
}

void ClusterModel::RemovePodGroup(const std::string& key) {
  if (pod_groups_.erase(key) == 0) return;
  changes_.groups.insert(key);
  changes_.groups_came_or_went.insert(key);
}

void ClusterModel::RemovePriorityClass(const std::string& name) {
  if (priority_classes_.erase(name) > 0) changes_.everything = true;
}

void ClusterModel::RemoveBudget(const std::string& key) {
  if (budgets_.erase(key) > 0) changes_.everything = true;
}

std::string ClusterModel::GroupKeyOf(const Pod& pod) {
  return pod.pod_group_name.empty() ? "" : pod.meta.namespace_name + "/" + pod.pod_group_name;
}

void ClusterModel::UnlinkFromGroup(const Pod& pod) {
  const std::string group = GroupKeyOf(pod);
  if (group.empty()) return;
  const auto it = pods_naming_group_.find(group);
  if (it == pods_naming_group_.end()) return;
  it->second.erase(pod.key);
  if (it->second.empty()) pods_naming_group_.erase(it);
}

bool ClusterModel::Included(const PodObject& object, const Pod& pod) const {
  if (!shard_) return true;
  if (!object.node_name.empty()) return nodes_.count(object.node_name) > 0;
  if (!pod.pod_group_name.empty()) return pod_groups_.count(GroupKeyOf(pod)) > 0;
  const auto label = object.meta.labels.find(shard_->label_key);
  return label == object.meta.labels.end() ? shard_->value.empty() : label->second == shard_->value;
}

void ClusterModel::ApplyView(Pod& pod, const PodObject& object, const CycleView& view) {
  if (!object.node_name.empty()) return;  // the API server's word stands
  const auto assumed = view.assumed_nodes.find(pod.key);
  const bool is_assumed = assumed != view.assumed_nodes.end();
  const bool gated = !is_assumed && view.gated.count(pod.key) > 0;
  if (!is_assumed && !gated) return;
  if (is_assumed) {
    pod.node_name = assumed->second;
    const auto groups = view.assumed_gpu_groups.find(pod.key);
    if (groups != view.assumed_gpu_groups.end() && pod.gpu_groups.empty()) {
      pod.gpu_groups = groups->second;
    }
  }
  pod.status = build::StatusOf(object.phase, object.meta.deleting, is_assumed,
                               gated || object.scheduling_gated);
}

ClusterModel::ViewPatches ClusterModel::PatchesOf(const CycleView& view) {
  ViewPatches patches;
  for (const std::string& key : view.gated) patches[key] = std::nullopt;
  for (const auto& [key, node] : view.assumed_nodes) patches[key] = node;  // a bind wins
  return patches;
}

std::shared_ptr<const SnapshotBuild> ClusterModel::Snapshot(Time now, const CycleView& view) {
  ViewPatches patches = PatchesOf(view);
  last_was_patched_ = false;
  if (last_ && last_.use_count() == 1 && !changes_.everything && last_patchable_) {
    last_was_patched_ = Patch(*last_, now, view, patches);
  }
  if (!last_was_patched_) {
    // Let go of the last one first (unless a holder still reads it): one snapshot in memory.
    last_.reset();
    last_ = std::make_shared<SnapshotBuild>(FullSnapshot(now, view));
    last_patchable_ = JobsArePatchable(last_->snapshot);
  }
  last_view_ = std::move(patches);
  changes_ = Changes{};
  changes_.everything = false;
  return last_;
}

SnapshotBuild ClusterModel::FullSnapshot(Time now, const CycleView& view) const {
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
    if (!Included(entry.object, entry.resolved)) continue;
    s.pods.push_back(entry.resolved);
    add_warnings(entry.warnings);
  }
  // The view's patches, found by key in the sorted pods (the maps are small next to them).
  const auto patch = [&](const std::string& key) {
    const auto seen = pod_index_.find(key);
    const Index at = s.FindPod(key);
    if (seen == pod_index_.end() || at == kNone) return;
    ApplyView(s.pods[static_cast<size_t>(at)], seen->second->object, view);
  };
  for (const auto& [key, node] : view.assumed_nodes) patch(key);
  for (const std::string& key : view.gated) patch(key);
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
