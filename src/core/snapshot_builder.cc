#include "core/snapshot_builder.h"

#include <algorithm>

#include "core/build_steps.h"

namespace quotient::core {

namespace build {

void LinkSnapshot(Snapshot& s, const std::vector<const PodGroupObject*>& pod_groups,
                  const std::vector<PriorityClassObject>& priority_classes,
                  const std::vector<PodDisruptionBudgetObject>& budgets,
                  const SnapshotOptions& options, Reporter& reporter) {
  s.jobs = BuildJobs(pod_groups, priority_classes, options, s.queues, s.pods, reporter);
  s.budgets = BuildBudgets(budgets, s.pods, reporter);
  PlacePodsOnNodes(s.nodes, s.pods);
  s.min_node_gpu_memory_mib = MinNodeGpuMemoryMib(s.nodes);
  s.max_node_gpu_memory_mib = MaxNodeGpuMemoryMib(s.nodes);
}

}  // namespace build

SnapshotBuild BuildSnapshot(const ClusterObjects& objects, const SnapshotOptions& options) {
  build::Reporter reporter;
  SnapshotBuild out;
  Snapshot& s = out.snapshot;
  s.now = options.now;
  s.scheduler_name = options.scheduler_name;
  s.queues = build::BuildQueues(objects.queues, reporter);
  s.nodes = build::BuildNodes(objects.nodes, options, reporter);
  s.pods = build::BuildPods(objects.pods, options, reporter);
  std::vector<const PodGroupObject*> groups;
  groups.reserve(objects.pod_groups.size());
  for (const PodGroupObject& g : objects.pod_groups) groups.push_back(&g);
  build::LinkSnapshot(s, groups, objects.priority_classes, objects.pod_disruption_budgets, options,
                      reporter);
  out.diagnostics = std::move(reporter.diagnostics);
  return out;
}

}  // namespace quotient::core
