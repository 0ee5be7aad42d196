// v1 Node -> core::NodeObject.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>

#include "core/node_health.h"
#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {
namespace {

// Node conditions that make a node unusable when their status is True.
bool IsPressureCondition(std::string_view type) {
  return type == "MemoryPressure" || type == "DiskPressure" || type == "PIDPressure" ||
         type == "NetworkUnavailable";
}

void DecodeTaints(FieldDecoder& d, const Value* spec, core::NodeObject& node) {
  const Value* taints = d.Sequence(spec->Find("taints"), "spec.taints");
  if (taints == nullptr) return;
  for (size_t i = 0; i < taints->size(); ++i) {
    const std::string field = FieldPath("spec.taints", i);
    const Value* taint = d.Mapping(&taints->items()[i], field);
    if (taint == nullptr) continue;
    core::Taint out;
    out.key = d.String(taint->Find("key"), FieldPath(field, "key")).value_or("");
    out.value = d.String(taint->Find("value"), FieldPath(field, "value")).value_or("");
    out.effect = d.String(taint->Find("effect"), FieldPath(field, "effect")).value_or("");
    node.taints.push_back(std::move(out));
  }
}

void DecodeConditions(FieldDecoder& d, const Value* status, core::NodeObject& node) {
  const Value* conditions = d.Sequence(status->Find("conditions"), "status.conditions");
  if (conditions == nullptr) return;
  for (size_t i = 0; i < conditions->size(); ++i) {
    const std::string field = FieldPath("status.conditions", i);
    const Value* condition = d.Mapping(&conditions->items()[i], field);
    if (condition == nullptr) continue;
    const std::string type =
        d.String(condition->Find("type"), FieldPath(field, "type")).value_or("");
    const std::string value =
        d.String(condition->Find("status"), FieldPath(field, "status")).value_or("");
    if (type == "Ready") {
      node.ready = value == "True";
    } else if (IsPressureCondition(type) && value == "True") {
      node.bad_conditions.push_back(type);
    } else if (core::IsFaultCondition(type) && value == "True") {
      // The agent's reason says which fault (Xid79, FallenOffBus): shown in pending reasons,
      // and matched against the GPUs it names in its gpu-health annotation.
      const std::string reason =
          d.String(condition->Find("reason"), FieldPath(field, "reason")).value_or("");
      node.fault_conditions.push_back({type, reason});
    }
  }
  std::sort(node.bad_conditions.begin(), node.bad_conditions.end());
  node.bad_conditions.erase(std::unique(node.bad_conditions.begin(), node.bad_conditions.end()),
                            node.bad_conditions.end());
  std::sort(node.fault_conditions.begin(), node.fault_conditions.end(),
            [](const core::FaultCondition& a, const core::FaultCondition& b) {
              return std::tie(a.type, a.reason) < std::tie(b.type, b.reason);
            });
}

// quotient.dev/gpu-health: {"unhealthy": [{"uuid", "index", "reason"}]}. Unreadable health is
// a problem of the node's (it is then not used), never a guess that its GPUs are fine.
void DecodeGpuHealth(core::NodeObject& node) {
  auto it = node.meta.annotations.find(std::string(core::kGpuHealthAnnotation));
  if (it == node.meta.annotations.end()) return;
  const std::string field = "metadata.annotations[" + std::string(core::kGpuHealthAnnotation) + "]";
  Result<Value> doc = ParseJson(it->second);
  if (!doc.ok() || !doc->is_mapping()) {
    node.problems.push_back(field + ": not a JSON object");
    return;
  }
  if (const Value* confined = doc->Find("confined"); confined != nullptr && !confined->is_null()) {
    if (!confined->is_sequence()) {
      node.problems.push_back(field + ".confined: not a list");
      return;
    }
    for (const Value& reason : confined->items()) node.confined_reasons.push_back(reason.text());
  }
  const Value* unhealthy = doc->Find("unhealthy");
  if (unhealthy == nullptr || unhealthy->is_null()) return;
  if (!unhealthy->is_sequence()) {
    node.problems.push_back(field + ".unhealthy: not a list");
    return;
  }
  for (const Value& entry : unhealthy->items()) {
    if (!entry.is_mapping()) {
      node.problems.push_back(field + ".unhealthy: an entry is not an object");
      return;
    }
    core::UnhealthyGpu gpu;
    if (const Value* uuid = entry.Find("uuid"); uuid != nullptr) gpu.uuid = uuid->text();
    if (const Value* reason = entry.Find("reason"); reason != nullptr) gpu.reason = reason->text();
    if (const Value* index = entry.Find("index"); index != nullptr) {
      gpu.index = std::strtoll(index->text().c_str(), nullptr, 10);
    }
    node.unhealthy_gpus.push_back(std::move(gpu));
  }
}

}  // namespace

std::optional<core::NodeObject> DecodeNode(const Value& object, const DecodeContext& context) {
  core::NodeObject node;
  std::optional<FieldDecoder> decoder =
      DecodeObjectMeta(object, "Node", Scope::kCluster, context, node.meta, node.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;

  if (const Value* spec = d.Mapping(object.Find("spec"), "spec")) {
    node.unschedulable = d.Bool(spec->Find("unschedulable"), "spec.unschedulable").value_or(false);
    DecodeTaints(d, spec, node);
  }
  if (const Value* status = d.Mapping(object.Find("status"), "status")) {
    // Capacity rounds down: a node never promises more than it has.
    const Value* allocatable = status->Find("allocatable");
    if (allocatable != nullptr && !allocatable->is_null()) {
      DecodeResourceList(d, allocatable, "status.allocatable", core::Rounding::kDown,
                         node.allocatable);
    } else {
      DecodeResourceList(d, status->Find("capacity"), "status.capacity", core::Rounding::kDown,
                         node.allocatable);
    }
    if (const Value* capacity = status->Find("capacity");
        capacity != nullptr && capacity->is_mapping() && capacity->Find("nvidia.com/gpu")) {
      core::ResourceVector total;
      DecodeResourceList(d, capacity, "status.capacity", core::Rounding::kDown, total);
      node.capacity_gpu_milli = total.gpu_milli;
    }
    DecodeConditions(d, status, node);
  }
  DecodeGpuHealth(node);
  return node;
}

}  // namespace quotient::kube
