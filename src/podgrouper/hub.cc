// From a pod to its grouper, by the kind of its top owner (KAI's hub, kai-reference §9).
#include <map>
#include <utility>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {

namespace {

using GrouperFn = Grouping (*)(const Request&);

Grouping Default(const Request& request) { return DefaultGrouping(request); }

// By "group/Kind" (any version: the groupers read the fields the versions share).
const std::map<std::string, GrouperFn>& Groupers() {
  static const std::map<std::string, GrouperFn> groupers = {
      {"/Pod", GroupBarePod},
      {"batch/Job", GroupJob},
      {"batch/CronJob", GroupCronJob},
      {"apps/Deployment", GroupDeployment},
      {"apps/ReplicaSet", Default},
      {"apps/StatefulSet", Default},
      {"kubeflow.org/PyTorchJob", GroupPyTorchJob},
      {"kubeflow.org/TFJob", GroupTFJob},
      {"kubeflow.org/XGBoostJob", GroupXGBoostJob},
      {"kubeflow.org/JAXJob", GroupJAXJob},
      {"kubeflow.org/MPIJob", GroupMPIJob},
      {"kubeflow.org/Notebook", GroupNotebook},
      {"ray.io/RayCluster", GroupRay},
      {"ray.io/RayJob", GroupRay},
      {"ray.io/RayService", GroupRay},
      {"jobset.x-k8s.io/JobSet", GroupJobSet},
      {"leaderworkerset.x-k8s.io/LeaderWorkerSet", GroupLeaderWorkerSet},
      {"serving.knative.dev/Service", GroupKnativeService},
  };
  return groupers;
}

// Kinds that only wrap the workload that does the work: the pod is grouped by the owner below
// them (for an Argo step, the pod itself), with their labels and annotations added.
bool WrapsOthers(const Object& owner) {
  static const std::map<std::string, bool> wrappers = {
      {"argoproj.io/Workflow", true},
      {"trainer.kubeflow.org/TrainJob", true},
      {"run.ai/TrainingWorkload", true},
      {"run.ai/InteractiveWorkload", true},
      {"run.ai/DistributedWorkload", true},
      {"run.ai/InferenceWorkload", true},
      {"run.ai/DistributedInferenceWorkload", true},
      {"nvidia.com/DynamoGraphDeployment", true},
  };
  return wrappers.count(owner.group() + "/" + owner.kind) > 0;
}

void MergeMissing(const Labels& from, Labels& into) {
  for (const auto& [key, value] : from) into.emplace(key, value);
}

}  // namespace

Grouping GroupPod(const Object& pod, const std::vector<Object>& owners, const ClusterView& view,
                  const Settings& settings) {
  const Object* top = owners.empty() ? &pod : &owners.back();
  const Object* wrapper = nullptr;
  if (!owners.empty() && WrapsOthers(owners.back())) {
    wrapper = &owners.back();
    top = owners.size() >= 2 ? &owners[owners.size() - 2] : &pod;
  }
  const Request request{pod, owners, *top, view, settings};
  const auto it = Groupers().find(top->group() + "/" + top->kind);
  Grouping g = it == Groupers().end() ? DefaultGrouping(request) : it->second(request);
  if (wrapper != nullptr) {
    MergeMissing(wrapper->labels, g.pod_group.labels);
    MergeMissing(wrapper->annotations, g.pod_group.annotations);
  }
  return g;
}

}  // namespace quotient::podgrouper
