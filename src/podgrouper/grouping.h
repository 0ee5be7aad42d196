// What the pod grouper decides for a pod: the PodGroup its workload needs (name, gang minimum,
// subgroups, queue, priority), the subgroup the pod belongs to, and warnings for the pod's
// events. Groupers are pure functions of the pod, its owner chain and a read-only view of the
// cluster (kai-reference §9), so each is tested on object files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "podgrouper/object.h"

namespace quotient::podgrouper {

// KAI's PodGroup spec.subGroups entry.
struct SubGroupSpec {
  std::string name;
  int32_t min_member = 1;
  std::string parent;  // "" = under the root
  bool operator==(const SubGroupSpec&) const = default;
};

struct PodGroupSpec {
  std::string name;
  std::string namespace_name;
  OwnerReference owner;  // the top owner, or the pod itself
  int32_t min_member = 1;
  std::vector<SubGroupSpec> sub_groups;
  std::string queue;
  std::string priority_class_name;
  std::string preemptibility;  // "preemptible", "non-preemptible", or "" (by priority)
  Labels labels;
  Labels annotations;
};

struct Grouping {
  PodGroupSpec pod_group;
  std::string pod_sub_group;          // the pod's kai.scheduler/subgroup-name label; "" = none
  std::vector<std::string> warnings;  // one PodGrouperWarning event each
};

// The defaults a kind gets when neither its objects nor the pod say (KAI's default-priorities
// ConfigMap: key `types`, a JSON list of {typeName, group, priorityName, preemptibility}).
struct KindDefaults {
  std::string priority_class;
  std::string preemptibility;
};

struct Settings {
  std::string queue_label_key = "kai.scheduler/queue";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::string default_queue = "default-queue";
  // Knative revisions are gang scheduled by min-scale (KAI's --knative-gang-schedule).
  bool knative_gang = true;
  // By "Kind.group" ("Deployment.apps") or "Kind" alone, as KAI's default-priorities ConfigMap
  // names types; overrides each grouper's built-in default.
  std::map<std::string, KindDefaults> kind_defaults;
};

// Read-only lookups some groupers need beyond the owner chain. Implemented over informers in
// the service and over maps in tests.
class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // The object of that apiVersion and kind, or nullptr.
  virtual const Object* Find(const std::string& api_version, const std::string& kind,
                             const std::string& namespace_name, const std::string& name) const = 0;
  // Pods of the namespace whose labels include every label of `selector`, in name order.
  virtual std::vector<const Object*> PodsWithLabels(const std::string& namespace_name,
                                                    const Labels& selector) const = 0;
  // The PodGroup of that name as it exists now, or nullptr.
  virtual const PodGroupSpec* ExistingPodGroup(const std::string& namespace_name,
                                               const std::string& name) const = 0;
  // Whether a PriorityClass of that name exists.
  virtual bool PriorityClassExists(const std::string& name) const = 0;
};

// What a grouper is given. `owners` runs from the pod's controller owner up to the top owner
// (owners.back()); empty for a bare pod. `top` is the owner the grouper groups by: the top owner,
// or the one below it for kinds that only wrap others (Argo Workflow, Trainer v2 TrainJob);
// for a bare pod, the pod.
struct Request {
  const Object& pod;
  const std::vector<Object>& owners;
  const Object& top;
  const ClusterView& view;
  const Settings& settings;
};

}  // namespace quotient::podgrouper
