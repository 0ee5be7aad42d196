// v1 Node -> core::NodeObject.
#include <algorithm>
#include <string>

#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {
namespace {

// Node conditions that make a node unusable when their status is True.
bool IsBadCondition(std::string_view type) {
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
    } else if (IsBadCondition(type) && value == "True") {
      node.bad_conditions.push_back(type);
    }
  }
  std::sort(node.bad_conditions.begin(), node.bad_conditions.end());
  node.bad_conditions.erase(std::unique(node.bad_conditions.begin(), node.bad_conditions.end()),
                            node.bad_conditions.end());
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
    DecodeConditions(d, status, node);
  }
  return node;
}

}  // namespace quotient::kube
