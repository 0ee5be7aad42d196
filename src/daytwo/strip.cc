#include "daytwo/strip.h"

#include <initializer_list>
#include <string>

namespace quotient::daytwo {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Copies the listed keys of `from` that are present, in this order.
void Keep(const json& from, ordered_json& to, std::initializer_list<std::string_view> keys) {
  if (!from.is_object()) return;
  for (std::string_view key : keys) {
    auto it = from.find(std::string(key));
    if (it != from.end()) to[std::string(key)] = ordered_json(*it);
  }
}

ordered_json Metadata(const json& object) {
  ordered_json meta = ordered_json::object();
  const json m = object.value("metadata", json::object());
  Keep(m, meta, {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "labels"});
  if (m.contains("annotations") && m["annotations"].is_object()) {
    ordered_json annotations = ordered_json::object();
    for (const auto& [key, value] : m["annotations"].items()) {
      // kubectl's copy of the whole applied object (env and all) would undo the stripping.
      if (key == "kubectl.kubernetes.io/last-applied-configuration") continue;
      annotations[key] = ordered_json(value);
    }
    if (!annotations.empty()) meta["annotations"] = annotations;
  }
  if (m.contains("ownerReferences")) {
    ordered_json owners = ordered_json::array();
    for (const json& o : m["ownerReferences"]) {
      ordered_json owner = ordered_json::object();
      Keep(o, owner, {"apiVersion", "kind", "name", "uid", "controller"});
      owners.push_back(owner);
    }
    meta["ownerReferences"] = owners;
  }
  return meta;
}

ordered_json Containers(const json& list, bool init) {
  ordered_json out = ordered_json::array();
  for (const json& c : list) {
    ordered_json container = ordered_json::object();
    Keep(c, container, {"name", "resources"});
    if (init) Keep(c, container, {"restartPolicy"});  // a sidecar holds its requests
    out.push_back(container);
  }
  return out;
}

ordered_json PodSpec(const json& spec) {
  ordered_json out = ordered_json::object();
  Keep(spec, out,
       {"schedulerName", "nodeName", "priority", "priorityClassName", "preemptionPolicy",
        "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "overhead",
        "schedulingGates", "runtimeClassName"});
  if (spec.contains("initContainers"))
    out["initContainers"] = Containers(spec["initContainers"], true);
  out["containers"] = Containers(spec.value("containers", json::array()), false);
  return out;
}

ordered_json NodeStatus(const json& status) {
  ordered_json out = ordered_json::object();
  Keep(status, out, {"capacity", "allocatable"});
  if (status.contains("conditions")) {
    ordered_json conditions = ordered_json::array();
    for (const json& c : status["conditions"]) {
      ordered_json condition = ordered_json::object();
      Keep(c, condition, {"type", "status", "reason", "message", "lastTransitionTime"});
      conditions.push_back(condition);
    }
    out["conditions"] = conditions;
  }
  return out;
}

}  // namespace

ordered_json StripObject(const SnapshotKind& kind, const json& object) {
  ordered_json out = ordered_json::object();
  out["apiVersion"] = std::string(kind.api_version);
  out["kind"] = std::string(kind.kind);
  out["metadata"] = Metadata(object);
  const json spec = object.value("spec", json::object());
  const json status = object.value("status", json::object());
  if (kind.kind == "Node") {
    ordered_json s = ordered_json::object();
    Keep(spec, s, {"unschedulable", "taints"});
    out["spec"] = s;
    out["status"] = NodeStatus(status);
  } else if (kind.kind == "Pod") {
    out["spec"] = PodSpec(spec);
    ordered_json s = ordered_json::object();
    Keep(status, s, {"phase", "startTime", "nominatedNodeName"});
    out["status"] = s;
  } else if (kind.kind == "PriorityClass") {
    Keep(object, out, {"value", "globalDefault", "preemptionPolicy"});
  } else {
    // Queues and PodGroups: their spec is all scheduling, their status what the scheduler wrote.
    if (object.contains("spec")) out["spec"] = ordered_json(spec);
    if (object.contains("status")) out["status"] = ordered_json(status);
  }
  return out;
}

}  // namespace quotient::daytwo
