// Pod groups: explicit PodGroups, implicit groups of one, subgroups, priority and queue.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/build_steps.h"
#include "core/time_text.h"

namespace quotient::core::build {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

int32_t PriorityTable::Resolve(const std::string& class_name, const ObjectMeta& meta,
                               std::string_view kind, Reporter& reporter) const {
  // KAI: the class's value; a missing or unknown class gets the global default, else 50.
  if (!class_name.empty()) {
    if (auto it = by_name.find(class_name); it != by_name.end()) return it->second;
    reporter.Warn(meta, kind, "priorityClassName",
                  "PriorityClass " + class_name + " does not exist; using the default priority");
  }
  return global_default.value_or(kDefaultPodGroupPriority);
}

PriorityTable BuildPriorityTable(const std::vector<PriorityClassObject>& classes) {
  PriorityTable table;
  for (const PriorityClassObject& c : classes) {
    if (!c.problems.empty()) continue;
    table.by_name.emplace(c.meta.name, c.value);
    // Several global defaults are an API-server error; take the first by name, as sorted input.
    if (c.global_default && !table.global_default) table.global_default = c.value;
  }
  return table;
}

namespace {

bool PreemptibleOf(Preemptibility p, int32_t priority) {
  if (p == Preemptibility::kPreemptible) return true;
  if (p == Preemptibility::kNonPreemptible) return false;
  return priority < kNonPreemptiblePriorityThreshold;
}

// The queue a job names must exist, be usable and be a leaf (only leaf queues hold jobs).
void ResolveQueue(Job& job, const std::vector<Queue>& queues) {
  auto it = std::lower_bound(queues.begin(), queues.end(), job.queue_name,
                             [](const Queue& q, const std::string& n) { return q.name < n; });
  if (job.queue_name.empty()) {
    job.problems.push_back("QueueDoesNotExist: the pod group names no queue (spec.queue)");
    return;
  }
  if (it == queues.end() || it->name != job.queue_name) {
    job.problems.push_back("QueueDoesNotExist: queue " + job.queue_name + " does not exist");
    return;
  }
  if (!it->problems.empty()) {
    job.problems.push_back("queue " + job.queue_name + " is unusable: " + it->problems.front());
    return;
  }
  if (!it->is_leaf()) {
    job.problems.push_back("queue " + job.queue_name +
                           " is not a leaf queue; only leaf queues hold workloads");
    return;
  }
  job.queue = static_cast<Index>(it - queues.begin());
}

// Subgroups: parents lower-cased, leaves carry minimums, the root minMember is ignored when
// subgroups exist. Duplicates, unknown parents and cycles are problems.
void BuildSubGroups(Job& job, const std::vector<SubGroupSpec>& specs) {
  if (specs.empty()) {
    job.sub_groups.push_back(SubGroup{"default", std::max(job.min_member, 1), kNone, true, {}});
    return;
  }
  std::map<std::string, Index> index_of;
  for (const SubGroupSpec& s : specs) {
    const std::string name = Lower(s.name);
    if (index_of.count(name)) {
      job.problems.push_back("spec.subGroups: duplicate subgroup name " + s.name);
      continue;
    }
    index_of[name] = static_cast<Index>(job.sub_groups.size());
    job.sub_groups.push_back(SubGroup{name, std::max(s.min_member, 1), kNone, true, {}});
  }
  for (const SubGroupSpec& s : specs) {
    if (!s.parent || s.parent->empty()) continue;
    auto parent = index_of.find(Lower(*s.parent));
    if (parent == index_of.end()) {
      job.problems.push_back("spec.subGroups: subgroup " + s.name + " names unknown parent " +
                             *s.parent);
      continue;
    }
    SubGroup& self = job.sub_groups[static_cast<size_t>(index_of[Lower(s.name)])];
    self.parent = parent->second;
    job.sub_groups[static_cast<size_t>(parent->second)].leaf = false;
  }
  for (size_t i = 0; i < job.sub_groups.size(); ++i) {
    Index at = job.sub_groups[i].parent;
    for (size_t steps = 0; at != kNone; ++steps) {
      if (steps > job.sub_groups.size()) {
        job.problems.push_back("spec.subGroups: parent cycle through " + job.sub_groups[i].name);
        return;
      }
      at = job.sub_groups[static_cast<size_t>(at)].parent;
    }
  }
}

// The scheduler's own annotations on a PodGroup: timestamps it wrote and our grace override.
void ReadSchedulerAnnotations(const PodGroupObject& o, Job& job, Reporter& reporter) {
  const auto read = [&](std::string_view key, auto parse, auto& out) {
    auto it = o.meta.annotations.find(std::string(key));
    if (it == o.meta.annotations.end()) return;
    auto parsed = parse(it->second);
    if (parsed.ok()) {
      out = parsed.value();
    } else {
      reporter.Warn(o.meta, "PodGroup", "metadata.annotations[" + std::string(key) + "]",
                    parsed.message() + "; ignored");
    }
  };
  read(kLastStartAnnotation, ParseRfc3339, job.last_start_time);
  read(kStaleSinceAnnotation, ParseRfc3339, job.stale_since);
  read(kStaleGraceAnnotation, ParseGoDuration, job.stale_grace_period);
  read(kLastEvictionAnnotation, ParseRfc3339, job.last_eviction_time);
}

}  // namespace

Job JobFromPodGroup(const PodGroupObject& o, const SnapshotOptions& options,
                    const PriorityTable& priorities, Reporter& reporter) {
  Job job;
  job.key = o.meta.Key();
  job.namespace_name = o.meta.namespace_name;
  job.name = o.meta.name;
  job.uid = o.meta.uid;
  job.creation_time = o.meta.creation_time;
  job.queue_name = o.queue;
  job.priority = priorities.Resolve(o.priority_class_name, o.meta, "PodGroup", reporter);
  job.preemptible = PreemptibleOf(o.preemptibility, job.priority);
  job.min_member = o.min_member;
  job.problems = o.problems;
  if (auto it = o.meta.labels.find(options.node_pool_label_key); it != o.meta.labels.end()) {
    job.node_pool = it->second;
  }
  BuildSubGroups(job, o.sub_groups);
  ReadSchedulerAnnotations(o, job, reporter);
  if (o.staleness_grace_period) job.stale_grace_period = o.staleness_grace_period;
  if (o.preemption_delay && o.preemption_delay->count() > 0) {
    job.preemption_delay = o.preemption_delay;
  }
  return job;
}

// A pod of this scheduler with no PodGroup: KAI's pod-grouper would make a group of one.
Job ImplicitJob(const Pod& pod, const SnapshotOptions& options, const PriorityTable& priorities,
                Reporter& reporter) {
  Job job;
  job.implicit = true;
  job.namespace_name = pod.meta.namespace_name;
  job.name = "pg-" + pod.meta.name;
  job.key = job.namespace_name + "/" + job.name;
  job.uid = pod.meta.uid;
  job.creation_time = pod.meta.creation_time;
  const Labels& labels = pod.meta.labels;
  if (auto it = labels.find(options.queue_label_key); it != labels.end()) {
    job.queue_name = it->second;
  } else if (auto project = labels.find("project"); project != labels.end()) {
    job.queue_name = project->second;
  } else {
    job.queue_name = std::string(kDefaultQueueName);
  }
  job.priority = priorities.Resolve(pod.priority_class_name, pod.meta, "Pod", reporter);
  if (!options.group_owned_pods_implicitly && !pod.meta.controller_kind.empty()) {
    job.problems.push_back(
        "waiting for its PodGroup: the pod grouper names one for pods owned "
        "by a " +
        pod.meta.controller_kind +
        ", and none of them is scheduled before, so no gang member runs "
        "alone (is `quotient podgrouper` running?)");
  }
  Preemptibility p = Preemptibility::kUnset;
  if (auto it = labels.find(std::string(kPreemptibilityLabel)); it != labels.end()) {
    if (it->second == "preemptible") {
      p = Preemptibility::kPreemptible;
    } else if (it->second == "non-preemptible") {
      p = Preemptibility::kNonPreemptible;
    } else {
      reporter.Warn(pod.meta, "Pod", "metadata.labels[kai.scheduler/preemptibility]",
                    "\"" + it->second + "\" is neither preemptible nor non-preemptible; ignored");
    }
  }
  job.preemptible = PreemptibleOf(p, job.priority);
  job.min_member = 1;
  if (auto it = labels.find(options.node_pool_label_key); it != labels.end()) {
    job.node_pool = it->second;
  }
  BuildSubGroups(job, {});
  return job;
}

Job JobForMissingGroup(const Pod& pod, const SnapshotOptions& options,
                       const PriorityTable& priorities, Reporter& reporter) {
  // The annotation names a PodGroup that is not there: keep the pods together, pending.
  Job job = ImplicitJob(pod, options, priorities, reporter);
  job.key = pod.meta.namespace_name + "/" + pod.pod_group_name;
  job.name = pod.pod_group_name;
  job.problems.push_back("PodGroup " + job.key +
                         " (named by the pod-group-name annotation) does not exist");
  reporter.Warn(pod.meta, "Pod", "metadata.annotations[pod-group-name]",
                "PodGroup " + job.key + " does not exist; the pod will not be scheduled");
  return job;
}

void AttachPod(Job& job, Index index, Pod& pod) {
  job.pods.push_back(index);
  const std::string wanted = pod.sub_group.empty() ? "default" : Lower(pod.sub_group);
  auto sg = std::find_if(job.sub_groups.begin(), job.sub_groups.end(),
                         [&](const SubGroup& s) { return s.name == wanted; });
  if (sg == job.sub_groups.end() || !sg->leaf) {
    pod.problems.push_back("label kai.scheduler/subgroup-name: pod group " + job.key +
                           " has no leaf subgroup \"" + wanted + "\"");
    return;
  }
  sg->pods.push_back(index);
}

void ResolveJobQueue(Job& job, const std::vector<Queue>& queues,
                     const std::function<std::string()>& source, Reporter& reporter) {
  const size_t known_problems = job.problems.size();
  ResolveQueue(job, queues);
  if (job.problems.size() == known_problems) return;
  ObjectMeta meta;
  meta.namespace_name = job.namespace_name;
  meta.name = job.name;
  meta.source = source();
  reporter.Warn(meta, job.implicit ? "implicit PodGroup" : "PodGroup",
                job.implicit ? "queue label" : "spec.queue",
                job.problems.back() + "; the pod group will not be scheduled");
}

std::vector<Job> BuildJobs(const std::vector<const PodGroupObject*>& pod_groups,
                           const std::vector<PriorityClassObject>& priority_classes,
                           const SnapshotOptions& options, const std::vector<Queue>& queues,
                           std::vector<Pod>& pods, Reporter& reporter) {
  const PriorityTable priorities = BuildPriorityTable(priority_classes);
  // Jobs are collected unordered and sorted by key once. `made` answers "is this key taken, and
  // by which job" (lookups only, so its order decides nothing); its keys view the jobs' own,
  // which stay put: the vector is reserved for every job there can be.
  std::vector<Job> jobs;
  jobs.reserve(pod_groups.size() + pods.size());
  std::unordered_map<std::string_view, Index> made;
  made.reserve(jobs.capacity());
  const auto add = [&](Job job) {
    jobs.push_back(std::move(job));
    made.emplace(jobs.back().key, static_cast<Index>(jobs.size() - 1));
  };
  for (const PodGroupObject* group : pod_groups) {
    const PodGroupObject& o = *group;
    if (made.count(o.meta.Key())) {
      reporter.Warn(o.meta, "PodGroup", "metadata.name",
                    "duplicate pod group; the first definition is used");
      continue;
    }
    add(JobFromPodGroup(o, options, priorities, reporter));
  }
  std::vector<Index> made_job_of_pod(pods.size(), kNone);  // index into `jobs` as made
  for (size_t i = 0; i < pods.size(); ++i) {
    const Pod& pod = pods[i];
    if (!pod.ours) continue;
    if (pod.pod_group_name.empty()) {
      Job job = ImplicitJob(pod, options, priorities, reporter);
      while (made.count(job.key)) job.key += "-implicit";
      add(std::move(job));
      made_job_of_pod[i] = static_cast<Index>(jobs.size() - 1);
      continue;
    }
    std::string key = pod.meta.namespace_name + "/" + pod.pod_group_name;
    if (const auto it = made.find(key); it != made.end()) {
      made_job_of_pod[i] = it->second;
      continue;
    }
    add(JobForMissingGroup(pod, options, priorities, reporter));
    made_job_of_pod[i] = static_cast<Index>(jobs.size() - 1);
  }
  made.clear();  // its keys view jobs about to move
  // Sorted by key through a permutation: jobs are moved once, not swapped about by the sort.
  std::vector<Index> order(jobs.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = static_cast<Index>(j);
  std::sort(order.begin(), order.end(), [&jobs](Index a, Index b) {
    return jobs[static_cast<size_t>(a)].key < jobs[static_cast<size_t>(b)].key;
  });
  std::vector<Index> sorted_index(jobs.size());
  std::vector<Job> sorted;
  sorted.reserve(jobs.size());
  for (Index made_index : order) {
    sorted_index[static_cast<size_t>(made_index)] = static_cast<Index>(sorted.size());
    sorted.push_back(std::move(jobs[static_cast<size_t>(made_index)]));
  }
  jobs = std::move(sorted);
  for (size_t i = 0; i < pods.size(); ++i) {
    const Index made_index = made_job_of_pod[i];
    if (made_index != kNone) pods[i].job = sorted_index[static_cast<size_t>(made_index)];
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    // The file a warning names: the PodGroup's, else (an implicit group has no object of its
    // own) its pod's; looked for only when the queue cannot be used.
    const auto source = [&]() -> std::string {
      for (const PodGroupObject* o : pod_groups) {
        if (o->meta.Key() == jobs[j].key) return o->meta.source;
      }
      for (const Pod& pod : pods) {
        if (pod.job == static_cast<Index>(j)) return pod.meta.source;
      }
      return "";
    };
    ResolveJobQueue(jobs[j], queues, source, reporter);
  }
  for (size_t i = 0; i < pods.size(); ++i) {
    Pod& pod = pods[i];
    if (pod.job != kNone) AttachPod(jobs[static_cast<size_t>(pod.job)], static_cast<Index>(i), pod);
  }
  return jobs;
}

}  // namespace quotient::core::build
