// Queue tree resolution: parents, children, default priority, and unusable subtrees.
#include <algorithm>

#include "core/build_steps.h"

namespace quotient::core::build {
namespace {

Queue FromObject(const QueueObject& object) {
  Queue q;
  q.name = object.meta.name;
  q.display_name = object.display_name;
  q.uid = object.meta.uid;
  q.creation_time = object.meta.creation_time;
  q.priority = object.priority.value_or(kDefaultQueuePriority);
  q.resources = object.resources;
  q.preempt_min_runtime = object.preempt_min_runtime;
  q.reclaim_min_runtime = object.reclaim_min_runtime;
  q.problems = object.problems;
  q.warnings = object.warnings;
  return q;
}

// Marks every queue on a parent cycle. Walks up from each queue; a walk that returns to a queue
// already on the current path has found a cycle.
void MarkCycles(std::vector<Queue>& queues, const std::vector<Index>& parent_of) {
  std::vector<int> state(queues.size(), 0);  // 0 unvisited, 1 on path, 2 done
  for (size_t start = 0; start < queues.size(); ++start) {
    std::vector<Index> path;
    Index at = static_cast<Index>(start);
    while (at != kNone && state[static_cast<size_t>(at)] == 0) {
      state[static_cast<size_t>(at)] = 1;
      path.push_back(at);
      at = parent_of[static_cast<size_t>(at)];
    }
    if (at != kNone && state[static_cast<size_t>(at)] == 1) {
      // `at` is on the current path: the cycle is the suffix of `path` from `at`.
      auto begin = std::find(path.begin(), path.end(), at);
      std::string names;
      for (auto it = begin; it != path.end(); ++it) {
        names += (names.empty() ? "" : " -> ") + queues[static_cast<size_t>(*it)].name;
      }
      names += " -> " + queues[static_cast<size_t>(at)].name;
      for (auto it = begin; it != path.end(); ++it) {
        queues[static_cast<size_t>(*it)].problems.push_back("spec.parentQueue forms a cycle: " +
                                                            names);
      }
    }
    for (Index p : path) state[static_cast<size_t>(p)] = 2;
  }
}

// A queue is unusable if it or any ancestor has a problem; descendants learn which ancestor.
void PropagateProblems(std::vector<Queue>& queues, const std::vector<Index>& parent_of) {
  for (size_t i = 0; i < queues.size(); ++i) {
    if (!queues[i].problems.empty()) continue;
    Index at = parent_of[i];
    size_t steps = 0;
    while (at != kNone && steps++ < queues.size()) {
      const Queue& ancestor = queues[static_cast<size_t>(at)];
      if (!ancestor.problems.empty()) {
        queues[i].problems.push_back("ancestor queue " + ancestor.name +
                                     " is unusable: " + ancestor.problems.front());
        break;
      }
      at = parent_of[static_cast<size_t>(at)];
    }
  }
}

}  // namespace

std::vector<Queue> BuildQueues(const std::vector<QueueObject>& objects, Reporter& reporter) {
  std::vector<const QueueObject*> sorted;
  for (const QueueObject& o : objects) sorted.push_back(&o);
  std::stable_sort(sorted.begin(), sorted.end(), [](const QueueObject* a, const QueueObject* b) {
    return a->meta.name < b->meta.name;
  });
  std::vector<Queue> queues;
  std::vector<std::string> parent_names;
  std::vector<std::string> sources;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i]->meta.name == sorted[i - 1]->meta.name) {
      reporter.Warn(sorted[i]->meta, "Queue", "metadata.name",
                    "duplicate queue; the first definition is used");
      continue;
    }
    queues.push_back(FromObject(*sorted[i]));
    parent_names.push_back(sorted[i]->parent);
    sources.push_back(sorted[i]->meta.source);
  }
  const auto find = [&](const std::string& name) -> Index {
    auto it = std::lower_bound(queues.begin(), queues.end(), name,
                               [](const Queue& q, const std::string& n) { return q.name < n; });
    return (it != queues.end() && it->name == name) ? static_cast<Index>(it - queues.begin())
                                                    : kNone;
  };
  std::vector<Index> parent_of(queues.size(), kNone);
  for (size_t i = 0; i < queues.size(); ++i) {
    if (parent_names[i].empty()) continue;
    parent_of[i] = find(parent_names[i]);
    if (parent_of[i] == kNone) {
      queues[i].problems.push_back("spec.parentQueue: parent queue " + parent_names[i] +
                                   " does not exist");
    }
  }
  MarkCycles(queues, parent_of);
  PropagateProblems(queues, parent_of);
  // Children are appended in index order, which is name order.
  for (size_t i = 0; i < queues.size(); ++i) {
    queues[i].parent = parent_of[i];
    if (parent_of[i] != kNone) {
      queues[static_cast<size_t>(parent_of[i])].children.push_back(static_cast<Index>(i));
    }
  }
  for (size_t i = 0; i < queues.size(); ++i) {
    const Queue& q = queues[i];
    for (const std::string& problem : q.problems) {
      ObjectMeta meta;
      meta.name = q.name;
      meta.source = sources[i];
      reporter.Warn(meta, "Queue", "", problem + "; its jobs will not be scheduled");
    }
  }
  return queues;
}

}  // namespace quotient::core::build
