// A job's objects: its PodGroup (minMember or minSubGroup, subgroups, priority class,
// preemptibility, queue and node-pool labels) and its pods (containers with cpu, memory and GPU
// requests, the GPU-sharing annotations, tolerations, selectors, affinity, the node and shared
// GPU group labels of running pods, deletion timestamps of releasing ones).
#include <string>

#include "generator_internal.h"

namespace quotient::kaidiff::gen {
namespace {

using nlohmann::json;

std::string Cpu(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

json Container(const Job& j) {
  json requests = {{"cpu", Cpu(j.cpu)}, {"memory", std::to_string(j.mem) + "Gi"}};
  json limits = json::object();
  if (j.gpu.kind == "whole") {
    requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = std::to_string(j.gpu.whole);
  } else if (j.gpu.kind == "mig") {
    const std::string name = "nvidia.com/mig-" + j.gpu.mig_profile;
    requests[name] = limits[name] = std::to_string(j.gpu.mig_count);
  }
  json resources = {{"requests", requests}};
  if (!limits.empty()) resources["limits"] = limits;
  return {{"name", "main"},
          {"image", "registry.example.com/work:1"},
          {"imagePullPolicy", "IfNotPresent"},
          {"resources", resources}};
}

json Annotations(const Job& j) {
  json a = json::object();
  if (!j.implicit) a["pod-group-name"] = j.name;
  const Gpu& g = j.gpu;
  if (g.kind == "fraction" || g.kind == "multi-fraction") {
    a["gpu-fraction"] = g.fraction % 10 == 0 ? "0." + std::to_string(g.fraction / 10)
                                             : "0." + std::to_string(g.fraction);
  }
  if (g.kind == "gpu-memory") a["gpu-memory"] = std::to_string(g.memory_mib);
  if (g.kind == "multi-fraction") a["gpu-fraction-num-devices"] = std::to_string(g.devices);
  return a;
}

json PodSpec(const Job& j) {
  json spec = {{"schedulerName", kSchedulerName},
               {"containers", json::array({Container(j)})},
               {"restartPolicy", "Never"},
               {"terminationGracePeriodSeconds", 30}};
  if (!j.priority_class.empty()) spec["priorityClassName"] = j.priority_class;
  if (j.tolerate) {
    spec["tolerations"] = json::array({{{"key", "dedicated"},
                                        {"operator", "Equal"},
                                        {"value", "gpu"},
                                        {"effect", "NoSchedule"}}});
  }
  if (!j.zone_in.empty() && !j.preferred_zone) {
    spec["nodeSelector"] = {{"topology.kubernetes.io/zone", j.zone_in}};
  }
  const std::string key = "topology.kubernetes.io/zone";
  if (j.preferred_zone) {
    spec["affinity"] = {
        {"nodeAffinity",
         {{"preferredDuringSchedulingIgnoredDuringExecution",
           json::array({{{"weight", 50},
                         {"preference",
                          {{"matchExpressions",
                            json::array({{{"key", key},
                                          {"operator", "In"},
                                          {"values", json::array({j.zone_in})}}})}}}}})}}}};
  } else if (!j.zone_not_in.empty()) {
    spec["affinity"] = {
        {"nodeAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{"nodeSelectorTerms",
             json::array({{{"matchExpressions",
                            json::array({{{"key", key},
                                          {"operator", "NotIn"},
                                          {"values", json::array({j.zone_not_in})}}})}}})}}}}}};
  }
  return spec;
}

}  // namespace

json PodGroupObject(const Job& j, const std::string& created, const json& annotations) {
  json spec = {{"queue", j.queue}};
  if (j.min_subgroup) {
    spec["minSubGroup"] = *j.min_subgroup;
  } else {
    spec["minMember"] = j.min_member;
  }
  if (!j.priority_class.empty()) spec["priorityClassName"] = j.priority_class;
  if (!j.preemptibility.empty()) spec["preemptibility"] = j.preemptibility;
  if (!j.leaves.empty()) {
    json subgroups = json::array();
    int parent_min = 0;
    for (size_t i = 0; i < j.leaves.size(); ++i) {
      json sg = {{"name", j.leaves[i].name}, {"minMember", j.leaves[i].min}};
      if (!j.parent_subgroup.empty() && i < 2) {
        sg["parent"] = j.parent_subgroup;
        parent_min += j.leaves[i].min;
      }
      subgroups.push_back(sg);
    }
    if (!j.parent_subgroup.empty()) {
      subgroups.push_back({{"name", j.parent_subgroup}, {"minMember", parent_min}});
    }
    spec["subGroups"] = subgroups;
  }
  json labels = {{"kai.scheduler/queue", j.queue}};
  if (!j.pool.empty()) labels["kai.scheduler/node-pool"] = j.pool;
  json meta = {
      {"name", j.name}, {"namespace", "ml"}, {"creationTimestamp", created}, {"labels", labels}};
  if (!annotations.empty()) meta["annotations"] = annotations;
  return {{"apiVersion", "scheduling.run.ai/v2alpha2"},
          {"kind", "PodGroup"},
          {"metadata", meta},
          {"spec", spec}};
}

json PodObject(Builder& b, const Job& j, const std::string& name, const std::string& subgroup,
               const std::string& created, const PodState& s) {
  json labels = {{"kai.scheduler/queue", j.queue}};
  if (!subgroup.empty()) labels["kai.scheduler/subgroup-name"] = subgroup;
  if (j.implicit && !j.pool.empty()) labels["kai.scheduler/node-pool"] = j.pool;
  json spec = PodSpec(j);
  json status = {{"phase", s.phase}, {"qosClass", "Burstable"}};
  if (s.placement) {
    spec["nodeName"] = b.node_states[s.placement->node].name;
    const std::vector<std::string>& groups = s.placement->groups;
    if (groups.size() == 1) labels["runai-gpu-group"] = groups[0];
    if (groups.size() > 1) {
      for (const std::string& g : groups) labels["runai-gpu-group/" + g] = g;
    }
    status["startTime"] = created;
  }
  if (s.gated) spec["schedulingGates"] = json::array({{{"name", "example.com/quota-check"}}});
  json meta = {{"name", name},
               {"namespace", "ml"},
               {"creationTimestamp", created},
               {"labels", labels},
               {"uid", "uid-" + name}};
  json annotations = Annotations(j);
  if (!annotations.empty()) meta["annotations"] = annotations;
  if (s.releasing) {
    meta["deletionTimestamp"] = SecondsBeforeNow(5);
    meta["deletionGracePeriodSeconds"] = 30;
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

}  // namespace quotient::kaidiff::gen
