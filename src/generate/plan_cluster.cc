#include "generate/cluster_plan.h"
#include "generate/plan_steps.h"

namespace quotient::generate {
namespace {

// The pending groups draw from their own stream, so that changing --running-pods leaves them as
// they were. (Any fixed odd constant would do; this one is the golden ratio's.)
constexpr uint64_t kPendingStream = 0x9e3779b97f4a7c15;

}  // namespace

Result<ClusterPlan> PlanCluster(const ClusterSpec& spec) {
  if (Status valid = ValidateSpec(spec); !valid.ok()) return valid;
  if (spec.workload == Workload::kReclaimLargeJobs) return plan::PlanReclaimLargeJobs(spec);

  ClusterPlan out;
  out.priority_classes = {{"train", 50}, {"inference", 125}};
  out.nodes = plan::PlanNodes(spec);
  int64_t cluster_gpus = 0;
  for (const PlannedNode& node : out.nodes) cluster_gpus += node.gpus;
  out.queues = plan::PlanQueueTree(spec, cluster_gpus);
  DeterministicRandom running(spec.seed);
  if (Status placed = plan::PlanRunningPods(spec, running, out); !placed.ok()) return placed;
  DeterministicRandom pending(spec.seed ^ kPendingStream);
  plan::PlanPendingGroups(spec, pending, out);
  return out;
}

}  // namespace quotient::generate
