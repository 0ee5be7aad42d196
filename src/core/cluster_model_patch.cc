// ClusterModel::Patch: the last snapshot brought up to date for what changed since it was made.
//
// The order of the steps is that of a full build: pods first (the changed ones read again, and
// indices renumbered where pods came or went), then the jobs those pods left or joined and the
// PodGroups that changed (remade whole, with their pods attached again), budgets, and last the
// nodes whose pods changed (their occupancy and GPU devices placed again). Everything else in
// the snapshot is left as it was: it does not depend on what changed. What sends a patch to a
// full build is mostly found before the snapshot is touched; the rest (a key two kinds of group
// claim) on the way, after which the caller builds afresh.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/build_steps.h"
#include "core/cluster_model.h"
#include "core/label_selectors.h"

namespace quotient::core {
namespace {

// One pod read again: where it was and what it becomes.
struct TouchedPod {
  std::string key;
  const Pod* now = nullptr;  // the model's reading, when the pod is in the new snapshot
  const PodObject* object = nullptr;
  const std::vector<Diagnostic>* warnings = nullptr;
  Index old_index = kNone;  // in the last snapshot
  Index old_node = kNone;
  std::string old_job;  // job keys, "" = none
  std::string new_job;
  Index index = kNone;  // in the new snapshot
};

// Beyond this many pods read again, a full build is about as quick and much simpler.
bool TooManyForAPatch(size_t touched, size_t pods) { return touched * 4 > pods + 64; }

// Maps every pod index in the snapshot through `remap` (kNone: the pod is gone).
void RenumberPods(Snapshot& s, const std::vector<Index>& remap) {
  const auto renumber = [&remap](std::vector<Index>& indices) {
    for (Index& i : indices) i = remap[static_cast<size_t>(i)];
    std::erase(indices, kNone);
  };
  for (Node& node : s.nodes) {
    renumber(node.pods);
    for (GpuDevice& device : node.gpus) {
      for (GpuDevice::Holder& h : device.holders) h.pod = remap[static_cast<size_t>(h.pod)];
    }
  }
  for (Job& job : s.jobs) {
    renumber(job.pods);
    for (SubGroup& sub_group : job.sub_groups) renumber(sub_group.pods);
  }
  for (DisruptionBudget& budget : s.budgets) renumber(budget.pods);
}

// Rearranges `items` (sorted by key) in place: drops those `gone` marks and inserts a
// default-made item for each of `came` (sorted keys, none already there) where its key falls,
// with `set_key` giving it its key. Returns each old index's new one (kNone: gone).
//
// In place, each kept item moved at most once: a fresh vector of 170,000 pods costs its page
// faults and destructors every cycle. New places rise with old ones, so the items moving down
// can go in increasing order and those moving up in decreasing order, each into a place whose
// item has left already or is gone.
template <typename T, typename KeyOf, typename SetKey>
std::vector<Index> Rearrange(std::vector<T>& items, const std::vector<bool>& gone,
                             const std::vector<std::string>& came, KeyOf key_of, SetKey set_key) {
  const size_t old_size = items.size();
  std::vector<Index> remap(old_size, kNone);
  std::vector<size_t> came_at;  // new places of `came`
  came_at.reserve(came.size());
  size_t kept = 0;
  auto next = came.begin();
  for (size_t i = 0; i < old_size; ++i) {
    for (; next != came.end() && *next < key_of(items[i]); ++next) {
      came_at.push_back(kept + came_at.size());
    }
    if (gone[i]) continue;
    remap[i] = static_cast<Index>(kept + came_at.size());
    ++kept;
  }
  for (; next != came.end(); ++next) came_at.push_back(kept + came_at.size());
  const size_t new_size = kept + came.size();
  if (new_size > old_size) items.resize(new_size);
  for (size_t i = 0; i < old_size; ++i) {
    const Index to = remap[i];
    if (to != kNone && static_cast<size_t>(to) < i)
      items[static_cast<size_t>(to)] = std::move(items[i]);
  }
  for (size_t i = old_size; i > 0; --i) {
    const Index to = remap[i - 1];
    if (to != kNone && static_cast<size_t>(to) > i - 1) {
      items[static_cast<size_t>(to)] = std::move(items[i - 1]);
    }
  }
  for (size_t c = 0; c < came.size(); ++c) {
    items[came_at[c]] = T{};
    set_key(items[came_at[c]], came[c]);
  }
  items.resize(new_size);
  return remap;
}

// Drops the touched pods that went and adds those that came (placeholders holding only their
// key, filled in by the caller), then renumbers every reference to a pod.
void ReshapePods(Snapshot& s, const std::vector<TouchedPod>& touched) {
  std::vector<bool> gone(s.pods.size(), false);
  std::vector<std::string> came;
  for (const TouchedPod& t : touched) {
    if (t.now == nullptr && t.old_index != kNone) gone[static_cast<size_t>(t.old_index)] = true;
    if (t.now != nullptr && t.old_index == kNone) came.push_back(t.key);  // in key order
  }
  const std::vector<Index> remap = Rearrange(
      s.pods, gone, came, [](const Pod& p) -> const std::string& { return p.key; },
      [](Pod& p, const std::string& key) { p.key = key; });
  RenumberPods(s, remap);
}

// The jobs of `remade` (key -> the job, or nullopt when it is gone) put in place, the vector
// rearranged where jobs came or went and pods renumbered; returns each remade job's index.
std::map<std::string, Index> ReshapeJobs(Snapshot& s,
                                         std::map<std::string, std::optional<Job>>& remade) {
  std::vector<bool> gone(s.jobs.size(), false);
  std::vector<std::string> came;
  for (const auto& [key, job] : remade) {
    const Index was = s.FindJob(key);
    if (!job && was != kNone) gone[static_cast<size_t>(was)] = true;
    if (job && was == kNone) came.push_back(key);
  }
  if (!came.empty() || std::find(gone.begin(), gone.end(), true) != gone.end()) {
    const std::vector<Index> remap = Rearrange(
        s.jobs, gone, came, [](const Job& j) -> const std::string& { return j.key; },
        [](Job& j, const std::string& key) { j.key = key; });
    for (Pod& pod : s.pods) {
      if (pod.job != kNone) pod.job = remap[static_cast<size_t>(pod.job)];
    }
  }
  std::map<std::string, Index> at;
  for (auto& [key, job] : remade) {
    if (!job) continue;
    const Index j = s.FindJob(key);
    s.jobs[static_cast<size_t>(j)] = std::move(*job);
    at[key] = j;
  }
  return at;
}

}  // namespace

bool ClusterModel::JobsArePatchable(const core::Snapshot& s) {
  for (const Job& job : s.jobs) {
    if (!job.implicit || job.pods.empty()) continue;
    const Pod& pod = s.pods[static_cast<size_t>(job.pods.front())];
    // A group for pods naming a missing PodGroup keeps its key; an implicit group of one pod
    // is renamed when its key is taken.
    const std::string expected = pod.pod_group_name.empty()
                                     ? pod.meta.namespace_name + "/pg-" + pod.meta.name
                                     : GroupKeyOf(pod);
    if (job.key != expected) return false;
  }
  return true;
}

bool ClusterModel::Patch(SnapshotBuild& build, Time now, const CycleView& view,
                         const ViewPatches& patches) {
  core::Snapshot& s = build.snapshot;
  if (s.budgets.size() != budgets_.size() || s.nodes.size() != nodes_.size()) return false;

  // The pods to read again: changed, naming a PodGroup that came or went, or viewed otherwise.
  std::set<std::string> keys = changes_.pods;
  for (const std::string& group : changes_.groups_came_or_went) {
    if (const auto it = pods_naming_group_.find(group); it != pods_naming_group_.end()) {
      keys.insert(it->second.begin(), it->second.end());
    }
  }
  for (const auto& [key, patch] : patches) {
    const auto last = last_view_.find(key);
    if (last == last_view_.end() || last->second != patch) keys.insert(key);
  }
  for (const auto& [key, patch] : last_view_) {
    if (!patches.count(key)) keys.insert(key);
  }
  if (TooManyForAPatch(keys.size(), s.pods.size())) return false;

  // What each becomes, and the shapes only a full build handles.
  std::vector<TouchedPod> touched;
  touched.reserve(keys.size());
  for (const std::string& key : keys) {
    TouchedPod& t = touched.emplace_back();
    t.key = key;
    if (const auto seen = pod_index_.find(key);
        seen != pod_index_.end() && Included(seen->second->object, seen->second->resolved)) {
      t.now = &seen->second->resolved;
      t.object = &seen->second->object;
      t.warnings = &seen->second->warnings;
    }
    t.old_index = s.FindPod(key);
    if (t.old_index != kNone) {
      const Pod& old = s.pods[static_cast<size_t>(t.old_index)];
      t.old_node = old.node;
      if (old.job != kNone) t.old_job = s.jobs[static_cast<size_t>(old.job)].key;
    }
    if (t.now == nullptr || !t.now->ours) continue;
    if (t.now->pod_group_name.empty()) {
      t.new_job = t.now->meta.namespace_name + "/pg-" + t.now->meta.name;
      if (pod_groups_.count(t.new_job)) return false;  // the implicit group would be renamed
    } else {
      t.new_job = GroupKeyOf(*t.now);
    }
  }
  for (const std::string& group : changes_.groups) {
    // A PodGroup taking the key of a pod's implicit group renames that group. (One arriving for
    // pods that already name it replaces the group made for them.)
    const Index j = s.FindJob(group);
    if (j == kNone || !pod_groups_.count(group)) continue;
    const Job& job = s.jobs[static_cast<size_t>(j)];
    if (!job.implicit || job.pods.empty()) continue;
    if (s.pods[static_cast<size_t>(job.pods.front())].pod_group_name.empty()) return false;
  }

  // From here the snapshot changes. Pods first.
  s.now = now;
  const bool pods_came_or_went =
      std::any_of(touched.begin(), touched.end(),
                  [](const TouchedPod& t) { return (t.now != nullptr) != (t.old_index != kNone); });
  if (pods_came_or_went) ReshapePods(s, touched);
  std::vector<bool> is_touched(s.pods.size(), false);
  for (TouchedPod& t : touched) {
    if (t.now == nullptr) continue;
    t.index = pods_came_or_went ? s.FindPod(t.key) : t.old_index;
    is_touched[static_cast<size_t>(t.index)] = true;
    Pod& pod = s.pods[static_cast<size_t>(t.index)];
    pod = *t.now;
    ApplyView(pod, *t.object, view);
  }

  // Jobs: each one a touched pod left or joined, and each changed PodGroup, remade with its pods.
  std::map<std::string, std::vector<Index>> members;
  for (const TouchedPod& t : touched) {
    if (!t.old_job.empty()) members[t.old_job];
    if (!t.new_job.empty()) members[t.new_job].push_back(t.index);
  }
  for (const std::string& group : changes_.groups) members[group];
  for (auto& [key, pods] : members) {
    if (const Index j = s.FindJob(key); j != kNone) {
      for (Index p : s.jobs[static_cast<size_t>(j)].pods) {
        if (!is_touched[static_cast<size_t>(p)]) pods.push_back(p);
      }
    }
    std::sort(pods.begin(), pods.end());
  }
  std::vector<PriorityClassObject> classes;
  for (const auto& [name, priority_class] : priority_classes_) classes.push_back(priority_class);
  const build::PriorityTable priorities = build::BuildPriorityTable(classes);
  build::Reporter reporter;
  std::map<std::string, std::optional<Job>> remade;
  std::vector<Index> warned_again;  // pods whose warnings a remade job may have changed
  for (const auto& [key, pods] : members) {
    std::optional<Job>& job = remade[key];
    std::string source;
    if (const auto group = pod_groups_.find(key); group != pod_groups_.end()) {
      job = build::JobFromPodGroup(group->second, options_, priorities, reporter);
      source = group->second.meta.source;
    } else if (!pods.empty()) {
      const Pod& first = s.pods[static_cast<size_t>(pods.front())];
      const bool naming = !first.pod_group_name.empty();
      // One key for an implicit group and pods naming a missing PodGroup: the full build
      // renames the implicit one.
      for (Index p : pods) {
        if (s.pods[static_cast<size_t>(p)].pod_group_name.empty() == naming) return false;
      }
      if (!naming && pods.size() != 1) return false;
      if (naming) {
        // Made from its first pod, which the warning names: that may be another pod now.
        job = build::JobForMissingGroup(first, options_, priorities, reporter);
        warned_again.insert(warned_again.end(), pods.begin(), pods.end());
      } else {
        job = build::ImplicitJob(first, options_, priorities, reporter);
      }
      source = first.meta.source;
    } else {
      continue;  // gone
    }
    build::ResolveJobQueue(
        *job, s.queues, [&source] { return source; }, reporter);
  }
  for (const auto& [key, j] : ReshapeJobs(s, remade)) {
    Job& job = s.jobs[static_cast<size_t>(j)];
    for (Index p : members.at(key)) {
      Pod& pod = s.pods[static_cast<size_t>(p)];
      // A pod left in its job may carry a problem its last attachment found.
      // (Attaching only adds problems: none now, none read.)
      if (!is_touched[static_cast<size_t>(p)] && !pod.problems.empty()) {
        pod.problems = pod_index_.at(pod.key)->resolved.problems;
      }
      pod.job = j;
      build::AttachPod(job, p, pod);
    }
  }

  // Budgets: the touched pods taken out of each and put back where the selector matches.
  for (DisruptionBudget& budget : s.budgets) {
    std::erase_if(budget.pods, [&](Index p) { return is_touched[static_cast<size_t>(p)]; });
  }
  Index b = 0;
  for (const auto& [key, object] : budgets_) {
    DisruptionBudget& budget = s.budgets[static_cast<size_t>(b)];
    for (const TouchedPod& t : touched) {
      if (t.now == nullptr || !object.selector) continue;
      Pod& pod = s.pods[static_cast<size_t>(t.index)];
      if (pod.meta.namespace_name != object.meta.namespace_name) continue;
      if (!MatchesSelector(*object.selector, pod.meta.labels)) continue;
      budget.pods.insert(std::lower_bound(budget.pods.begin(), budget.pods.end(), t.index),
                         t.index);
      pod.budgets.push_back(b);
    }
    ++b;
  }

  // Nodes: those a touched pod left or holds now, and those that changed, placed again.
  std::map<Index, std::vector<Index>> on_node;
  for (const TouchedPod& t : touched) {
    if (t.old_node != kNone) on_node[t.old_node];
    if (t.now == nullptr) continue;
    const Pod& pod = s.pods[static_cast<size_t>(t.index)];
    if (!IsActiveUsedStatus(pod.status)) continue;
    if (const Index n = s.FindNode(pod.node_name); n != kNone) on_node[n].push_back(t.index);
  }
  for (const std::string& name : changes_.nodes) on_node[s.FindNode(name)];
  for (auto& [n, pods] : on_node) {
    if (n == kNone) return false;  // cannot happen: the set of nodes is as it was
    Node& node = s.nodes[static_cast<size_t>(n)];
    for (Index p : node.pods) {
      if (!is_touched[static_cast<size_t>(p)]) pods.push_back(p);
    }
    std::sort(pods.begin(), pods.end());
    node = nodes_.at(node.name).resolved;
    build::PlaceOnNode(node, n, s.pods, pods);
  }
  if (!changes_.nodes.empty()) {
    s.min_node_gpu_memory_mib = MinNodeGpuMemoryMib(s.nodes);
    s.max_node_gpu_memory_mib = MaxNodeGpuMemoryMib(s.nodes);
  }

  // Warnings: those of the objects read again replace what they said before.
  std::set<std::string> stale;
  for (const TouchedPod& t : touched) stale.insert("Pod " + t.key);
  for (const auto& [key, job] : remade) {
    stale.insert("PodGroup " + key);
    stale.insert("implicit PodGroup " + key);
  }
  for (const std::string& name : changes_.nodes) stale.insert("Node " + name);
  std::erase_if(warned_again, [&](Index p) { return is_touched[static_cast<size_t>(p)]; });
  for (Index p : warned_again) stale.insert("Pod " + s.pods[static_cast<size_t>(p)].key);
  std::vector<Diagnostic>& out = build.diagnostics;
  std::erase_if(out, [&stale](const Diagnostic& d) { return stale.count(d.object) > 0; });
  for (const std::string& name : changes_.nodes) {
    const auto& warnings = nodes_.at(name).warnings;
    out.insert(out.end(), warnings.begin(), warnings.end());
  }
  for (const TouchedPod& t : touched) {
    if (t.now != nullptr) out.insert(out.end(), t.warnings->begin(), t.warnings->end());
  }
  for (Index p : warned_again) {
    const auto& warnings = pod_index_.at(s.pods[static_cast<size_t>(p)].key)->warnings;
    out.insert(out.end(), warnings.begin(), warnings.end());
  }
  out.insert(out.end(), reporter.diagnostics.begin(), reporter.diagnostics.end());
  return true;
}

}  // namespace quotient::core
