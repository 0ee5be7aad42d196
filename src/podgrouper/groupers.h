// The groupers, one per workload kind (kai-reference §9), and the dispatch from a pod to the
// right one. Every grouper starts from DefaultGrouping and changes what its kind needs.
#pragma once

#include <string>
#include <vector>

#include "podgrouper/grouping.h"

namespace quotient::podgrouper {

// The pod's grouping: the grouper of its top owner's kind (exact apiVersion and kind, then any
// version of the group and kind), else the default. `owners` as in Request.
Grouping GroupPod(const Object& pod, const std::vector<Object>& owners, const ClusterView& view,
                  const Settings& settings);

// The common part (KAI's DefaultGrouper): name pg-<top name>-<top uid>, owned by `top`, gang of
// one; queue from the queue label on the owners (top first) then the pod, else the `project`
// label, else the default queue; priority class from the `priorityClassName` label on the owners
// then the pod, then the pod's spec.priorityClassName when such a PriorityClass exists, then the
// kind's default (Settings::kind_defaults, else `kind_priority`), then `train`; preemptibility
// from the `kai.scheduler/preemptibility` label (owners, then pod), then the kind's default;
// labels and annotations of the top owner; the pod's node-pool label.
Grouping DefaultGrouping(const Request& request, const std::string& kind_priority = "train",
                         const std::string& kind_preemptibility = "");

// Built-in kinds (builtin_groupers.cc).
Grouping GroupBarePod(const Request& request);     // incl. Spark driver/executor pods
Grouping GroupJob(const Request& request);         // batch/v1 Job: per pod
Grouping GroupCronJob(const Request& request);     // grouped by the Job it created
Grouping GroupDeployment(const Request& request);  // per pod, inference

// Kubeflow (kubeflow_groupers.cc).
Grouping GroupPyTorchJob(const Request& request);
Grouping GroupTFJob(const Request& request);
Grouping GroupXGBoostJob(const Request& request);
Grouping GroupJAXJob(const Request& request);
Grouping GroupMPIJob(const Request& request);
Grouping GroupNotebook(const Request& request);

// Ray, JobSet, LeaderWorkerSet, Knative (ray_grouper.cc, jobset_grouper.cc, lws_grouper.cc,
// knative_grouper.cc).
Grouping GroupRay(const Request& request);  // RayCluster, RayJob, RayService
Grouping GroupJobSet(const Request& request);
Grouping GroupLeaderWorkerSet(const Request& request);
Grouping GroupKnativeService(const Request& request);

}  // namespace quotient::podgrouper
