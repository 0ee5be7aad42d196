// Groupers of Kubernetes' own kinds (kai-reference §9): bare pods (and Spark's), Jobs and
// CronJobs, Deployments.
#include "podgrouper/groupers.h"

namespace quotient::podgrouper {

Grouping GroupBarePod(const Request& request) {
  Grouping g = DefaultGrouping(request);
  // A Spark application's driver is a bare pod and its executors are owned by the driver: all
  // of them share the group the spark-app-selector label names.
  const Labels& labels = request.pod.labels;
  const auto app = labels.find("spark-app-name");
  const auto selector = labels.find("spark-app-selector");
  if (app != labels.end() && selector != labels.end() && !selector->second.empty()) {
    g.pod_group.name = selector->second;
  }
  return g;
}

Grouping GroupJob(const Request& request) {
  Grouping g = DefaultGrouping(request);
  const Object& job = request.top;
  // One group per pod: a Job's pods run independently (a gang of one each). Groups made under
  // KAI's older naming, one per Job of parallelism 1, are reused so running work keeps its group.
  const std::optional<int32_t> parallelism =
      ReadCount(At(job, {"spec", "parallelism"}), job, "spec.parallelism", g.warnings);
  const std::string legacy = "pg-" + job.name + "-" + job.uid;
  if (parallelism.value_or(1) <= 1 &&
      request.view.ExistingPodGroup(request.pod.namespace_name, legacy) != nullptr) {
    g.pod_group.name = legacy;
    return g;
  }
  g.pod_group.name = "pg-" + request.pod.name + "-" + job.uid;
  return g;
}

Grouping GroupCronJob(const Request& request) {
  // Grouped by the Job the CronJob created (the owner below it), with the default rules.
  if (request.owners.size() < 2) return DefaultGrouping(request);
  const Object& job = request.owners[request.owners.size() - 2];
  const Request by_job{request.pod, request.owners, job, request.view, request.settings};
  return DefaultGrouping(by_job);
}

Grouping GroupDeployment(const Request& request) {
  // Replicas of a Deployment serve independently: one group per pod, owned by the pod so it goes
  // with it; inference priority.
  Grouping g = DefaultGrouping(request, "inference");
  g.pod_group.name = "pg-" + request.pod.name + "-" + request.pod.uid;
  g.pod_group.owner = request.pod.AsOwner();
  return g;
}

}  // namespace quotient::podgrouper
