// Ray (ray.io v1 and v1alpha1): RayCluster, RayJob and RayService pods share one PodGroup per top
// owner, sized from the RayCluster's head and worker groups the way KubeRay sizes gangs for
// batch schedulers (KAI's plugins/ray/ray_grouper.go, kai-reference §9).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {
namespace {

constexpr std::string_view kRayClusterKind = "RayCluster";
constexpr std::string_view kRayJobKind = "RayJob";
constexpr std::string_view kRayServiceKind = "RayService";
constexpr std::string_view kHeadGroupName = "headgroup";  // KubeRay's ray.io/group of the head
constexpr std::string_view kNodeGroupLabel = "ray.io/group";
constexpr std::string_view kPriorityClassLabel = "ray.io/priority-class-name";
constexpr int64_t kMaxMinMember = std::numeric_limits<int32_t>::max();

void Warn(std::vector<std::string>& warnings, const Object& object, std::string_view field,
          std::string_view problem) {
  warnings.push_back(object.Describe() + ": " + std::string(field) + ": " + std::string(problem));
}

// Where the ray-operator records the RayCluster it created for a RayJob or RayService, in the
// order KAI reads them (a RayService's active cluster first, its pending one while upgrading).
std::vector<std::vector<std::string_view>> ClusterNamePaths(const Object& top) {
  if (top.kind == kRayJobKind) return {{"status", "rayClusterName"}};
  if (top.kind == kRayServiceKind) {
    return {{"status", "activeServiceStatus", "rayClusterName"},
            {"status", "pendingServiceStatus", "rayClusterName"}};
  }
  return {};
}

std::string Dotted(const std::vector<std::string_view>& path) {
  std::string dotted;
  for (std::string_view step : path) {
    if (!dotted.empty()) dotted += '.';
    dotted += step;
  }
  return dotted;
}

const kube::Value* AtPath(const Object& object, const std::vector<std::string_view>& path) {
  const kube::Value* value = &object.doc;
  for (std::string_view step : path) {
    value = At(value, {step});
    if (value == nullptr) return nullptr;
  }
  return value;
}

// The RayCluster in the pod's owner chain: a RayJob's or RayService's pods are owned by it.
const Object* ClusterInOwnerChain(const Request& request) {
  for (const Object& owner : request.owners) {
    if (owner.group() == "ray.io" && owner.kind == kRayClusterKind) return &owner;
  }
  return nullptr;
}

// The RayCluster named at the first of `paths` that names one; nullptr, with a warning, when
// none does or the named cluster does not exist.
const Object* ClusterNamedInStatus(const Request& request,
                                   const std::vector<std::vector<std::string_view>>& paths,
                                   std::string_view fallback, std::vector<std::string>& warnings) {
  const Object& top = request.top;
  for (const std::vector<std::string_view>& path : paths) {
    std::string cluster_name = ReadString(AtPath(top, path));
    if (cluster_name.empty()) continue;
    const Object* cluster = request.view.Find(top.api_version, std::string(kRayClusterKind),
                                              top.namespace_name, cluster_name);
    if (cluster == nullptr) {
      Warn(warnings, top, Dotted(path),
           "RayCluster \"" + cluster_name + "\" not found; " + std::string(fallback));
    }
    return cluster;
  }
  std::string fields = Dotted(paths.front());
  for (size_t index = 1; index < paths.size(); ++index) fields += " and " + Dotted(paths[index]);
  Warn(warnings, top, fields,
       "missing: the ray-operator has not reported the RayCluster it created; " +
           std::string(fallback));
  return nullptr;
}

// The RayCluster whose worker groups size the gang. KAI gives up when the top owner's status
// names no cluster or the named cluster does not exist; we warn and fall back to the cluster the
// pod is owned by, which is the same cluster once the operator's status has caught up.
const Object* FindRayCluster(const Request& request, std::vector<std::string>& warnings) {
  std::vector<std::vector<std::string_view>> paths = ClusterNamePaths(request.top);
  if (paths.empty()) return &request.top;  // a RayCluster sizes itself
  const Object* owner_cluster = ClusterInOwnerChain(request);
  const std::string fallback =
      owner_cluster != nullptr
          ? "sizing the gang from " + owner_cluster->Describe() + ", the pod's owner"
          : "the PodGroup is a gang of one without subgroups";
  const Object* named = ClusterNamedInStatus(request, paths, fallback, warnings);
  return named != nullptr ? named : owner_cluster;
}

// One worker group's share of the gang, or nullopt when it adds no pods (suspended, scaled to
// zero) or cannot be read.
struct WorkerGroupSize {
  std::string name;
  int64_t pods = 0;
};

std::optional<WorkerGroupSize> ReadWorkerGroup(const Object& cluster, const kube::Value& group,
                                               size_t index, std::vector<std::string>& warnings) {
  const std::string field = "spec.workerGroupSpecs[" + std::to_string(index) + "]";
  if (!group.is_mapping()) {
    Warn(warnings, cluster, field,
         "not a map but a " + std::string(kube::Value::TypeName(group.type())) +
             "; the group is left out of the gang");
    return std::nullopt;
  }
  const kube::Value* suspend = group.Find("suspend");
  if (suspend != nullptr && !suspend->is_null()) {
    if (suspend->type() != kube::Value::Type::kBool) {
      Warn(warnings, cluster, field + ".suspend", "not a bool; treated as false");
    } else if (suspend->bool_value()) {
      return std::nullopt;  // KubeRay deletes a suspended group's pods
    }
  }
  std::optional<int32_t> replicas =
      ReadCount(group.Find("replicas"), cluster, field + ".replicas", warnings);
  int64_t min_replicas =
      ReadCount(group.Find("minReplicas"), cluster, field + ".minReplicas", warnings).value_or(0);
  if (replicas.has_value() && min_replicas > *replicas) {
    // KAI rejects the cluster; KubeRay creates minReplicas pods, so the gang waits for those.
    Warn(warnings, cluster, field + ".minReplicas",
         std::to_string(min_replicas) + " exceeds replicas " + std::to_string(*replicas) +
             "; the gang counts minReplicas");
  }
  const int64_t per_host = min_replicas > 0 ? min_replicas : replicas.value_or(0);
  const int64_t hosts =
      ReadCount(group.Find("numOfHosts"), cluster, field + ".numOfHosts", warnings).value_or(1);
  if (per_host * hosts == 0) return std::nullopt;

  WorkerGroupSize size;
  size.pods = per_host * hosts;
  size.name = ReadString(group.Find("groupName"));
  if (size.name.empty()) size.name = "worker-group-" + std::to_string(index);
  return size;
}

// KubeRay's gang: the head plus each worker group's minReplicas (else replicas) times its hosts,
// and a subgroup for the head and each worker group that has pods.
struct ClusterGang {
  int32_t min_member = 1;
  std::vector<SubGroupSpec> sub_groups;
};

ClusterGang SizeCluster(const Object& cluster, std::vector<std::string>& warnings) {
  ClusterGang gang;
  gang.sub_groups.push_back({std::string(kHeadGroupName), 1, ""});
  const kube::Value* groups = At(cluster, {"spec", "workerGroupSpecs"});
  if (groups == nullptr || groups->is_null()) return gang;
  if (!groups->is_sequence()) {
    Warn(warnings, cluster, "spec.workerGroupSpecs",
         "not a list but a " + std::string(kube::Value::TypeName(groups->type())) +
             "; only the head is gang scheduled");
    return gang;
  }
  int64_t total = 1;
  for (size_t index = 0; index < groups->items().size(); ++index) {
    std::optional<WorkerGroupSize> group =
        ReadWorkerGroup(cluster, groups->items()[index], index, warnings);
    if (!group.has_value()) continue;
    if (group->pods > kMaxMinMember || total + group->pods > kMaxMinMember) {
      Warn(warnings, cluster, "spec.workerGroupSpecs[" + std::to_string(index) + "]",
           "the group's " + std::to_string(group->pods) +
               " pods overflow a PodGroup's minMember; the group is left out of the gang");
      continue;
    }
    total += group->pods;
    gang.sub_groups.push_back({group->name, static_cast<int32_t>(group->pods), ""});
  }
  gang.min_member = static_cast<int32_t>(total);
  return gang;
}

// KAI keeps PodGroups created before Ray subgroups existed flat, so running clusters keep
// scheduling the way they started; new PodGroups, and those that already have subgroups, get them.
bool UsesSubGroups(const Request& request, const PodGroupSpec& pod_group) {
  const PodGroupSpec* existing =
      request.view.ExistingPodGroup(pod_group.namespace_name, pod_group.name);
  return existing == nullptr || !existing->sub_groups.empty();
}

// The pod's worker group, by KubeRay's ray.io/group label ("headgroup" on the head). The
// RayJob's submitter pod has no Ray labels and so joins no subgroup, as in KAI.
std::string PodSubGroup(const Object& pod, const std::vector<SubGroupSpec>& sub_groups,
                        std::vector<std::string>& warnings) {
  auto label = pod.labels.find(std::string(kNodeGroupLabel));
  if (label == pod.labels.end() || label->second.empty()) return "";
  const std::string& group = label->second;
  const bool known = std::any_of(sub_groups.begin(), sub_groups.end(),
                                 [&](const SubGroupSpec& sub) { return sub.name == group; });
  if (!known) {
    Warn(warnings, pod, "metadata.labels." + std::string(kNodeGroupLabel),
         "worker group \"" + group +
             "\" has no subgroup in the PodGroup (suspended, scaled to zero or unknown)");
    return "";
  }
  return group;
}

}  // namespace

Grouping GroupRay(const Request& request) {
  Grouping grouping = DefaultGrouping(request);
  std::vector<std::string>& warnings = grouping.warnings;

  // Ray has its own label for the workload's priority class, on the top owner.
  if (auto priority = request.top.labels.find(std::string(kPriorityClassLabel));
      priority != request.top.labels.end() && !priority->second.empty()) {
    grouping.pod_group.priority_class_name = priority->second;
  }

  const Object* cluster = FindRayCluster(request, warnings);
  if (cluster == nullptr) return grouping;  // nothing to size the gang from: a gang of one

  ClusterGang gang = SizeCluster(*cluster, warnings);
  grouping.pod_group.min_member = gang.min_member;
  if (UsesSubGroups(request, grouping.pod_group)) {
    grouping.pod_group.sub_groups = std::move(gang.sub_groups);
    grouping.pod_sub_group = PodSubGroup(request.pod, grouping.pod_group.sub_groups, warnings);
  }
  return grouping;
}

}  // namespace quotient::podgrouper
