#include "remediator/observed.h"

#include <charconv>

#include "core/node_health.h"
#include "core/time_text.h"
#include "kube/value.h"
#include "remediation/record_codec.h"
#include "remediator/step_objects.h"

namespace quotient::remediator {
namespace {

using kube::Value;

const Value* At(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* v = &root;
  for (std::string_view key : path) {
    v = v->Find(key);
    if (v == nullptr) return nullptr;
  }
  return v;
}

std::string Text(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* v = At(root, path);
  return v == nullptr ? "" : v->text();
}

std::map<std::string, std::string> StringMap(const Value* map) {
  std::map<std::string, std::string> out;
  if (map == nullptr || !map->is_mapping()) return out;
  for (size_t i = 0; i < map->size(); ++i) out[map->keys()[i]] = map->items()[i].text();
  return out;
}

Result<Value> Parse(const kubeclient::RawObject& raw) {
  Result<Value> doc = kube::ParseJson(raw.json);
  if (!doc.ok()) return Result<Value>::Error(raw.Key() + ": " + doc.message());
  return doc;
}

// The kubelet's conditions: Ready is True when well, the pressure ones are not ours to act on.
bool IsKubeletCondition(const std::string& type) {
  return type == "Ready" || type == "MemoryPressure" || type == "DiskPressure" ||
         type == "PIDPressure" || type == "NetworkUnavailable";
}

remediation::ConditionStatus StatusOf(const std::string& s) {
  if (s == "True") return remediation::ConditionStatus::kTrue;
  if (s == "False") return remediation::ConditionStatus::kFalse;
  return remediation::ConditionStatus::kUnknown;
}

// "1", "8", "8000m": whole GPUs, rounded down (a fraction of a device does not exist).
int64_t WholeGpus(const std::string& text) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc()) return 0;
  if (end != text.data() + text.size() && std::string_view(end) == "m") return n / 1000;
  return end == text.data() + text.size() ? n : 0;
}

Result<ObservedStep> StepOf(const kubeclient::RawObject& raw, const Value& doc) {
  Result<StepRef> ref = ReadStepRef(raw.labels, StringMap(At(doc, {"metadata", "annotations"})));
  if (!ref.ok()) return Result<ObservedStep>::Error(raw.Key() + ": " + ref.message());
  ObservedStep step;
  step.ref = *ref;
  step.boot_id_before =
      StringMap(At(doc, {"metadata", "annotations"}))[std::string(kBootIdAnnotation)];
  return step;
}

// "container step: exit code 3 (Error)" from the first terminated container.
std::string TerminationMessage(const Value& doc) {
  const Value* statuses = At(doc, {"status", "containerStatuses"});
  if (statuses == nullptr) return Text(doc, {"status", "message"});
  for (const Value& s : statuses->items()) {
    const Value* term = At(s, {"state", "terminated"});
    if (term == nullptr) continue;
    std::string msg = "container " + Text(s, {"name"}) + ": exit code " + Text(*term, {"exitCode"});
    if (const std::string reason = Text(*term, {"reason"}); !reason.empty()) {
      msg += " (" + reason + ")";
    }
    if (const std::string m = Text(*term, {"message"}); !m.empty()) msg += ": " + m;
    return msg;
  }
  return Text(doc, {"status", "message"});
}

}  // namespace

Result<ObservedNode> DecodeNode(const kubeclient::RawObject& raw) {
  Result<Value> parsed = Parse(raw);
  if (!parsed.ok()) return parsed.status();
  const Value& doc = *parsed;
  ObservedNode node;
  node.name = raw.name;
  node.uid = raw.uid;
  node.labels = raw.labels;
  node.record_json =
      StringMap(At(doc, {"metadata", "annotations"}))[std::string(remediation::kRecordAnnotation)];
  const Value* unschedulable = At(doc, {"spec", "unschedulable"});
  node.unschedulable = unschedulable != nullptr && unschedulable->bool_value();
  if (const Value* taints = At(doc, {"spec", "taints"})) {
    for (const Value& t : taints->items()) {
      const std::string key = Text(t, {"key"});
      if (key == core::kUnhealthyTaint) node.unhealthy_taint = true;
      if (key == core::kHardwareRepairTaint) node.repair_taint = true;
    }
  }
  if (const Value* conditions = At(doc, {"status", "conditions"})) {
    for (const Value& c : conditions->items()) {
      const std::string type = Text(c, {"type"});
      const std::string status = Text(c, {"status"});
      if (type == "Ready") node.ready = status == "True";
      if (type.empty() || IsKubeletCondition(type)) continue;
      remediation::FaultCondition fault;
      fault.type = type;
      fault.status = StatusOf(status);
      fault.reason = Text(c, {"reason"});
      fault.message = Text(c, {"message"});
      if (Result<core::Time> t = core::ParseRfc3339(Text(c, {"lastTransitionTime"})); t.ok()) {
        fault.last_transition = *t;
      }
      node.conditions.push_back(std::move(fault));
    }
  }
  node.boot_id = Text(doc, {"status", "nodeInfo", "bootID"});
  if (const Value* capacity = At(doc, {"status", "capacity"})) {
    node.gpus = WholeGpus(Text(*capacity, {"nvidia.com/gpu"}));
  }
  return node;
}

Result<ObservedPod> DecodePod(const kubeclient::RawObject& raw) {
  Result<Value> parsed = Parse(raw);
  if (!parsed.ok()) return parsed.status();
  const Value& doc = *parsed;
  ObservedPod pod;
  pod.key = raw.Key();
  pod.uid = raw.uid;
  pod.node = Text(doc, {"spec", "nodeName"});
  pod.terminating = raw.deleting;
  for (const kubeclient::OwnerReference& owner : raw.owners) {
    if (owner.kind == "DaemonSet" && owner.controller) pod.daemonset = true;
  }
  const auto annotations = StringMap(At(doc, {"metadata", "annotations"}));
  pod.mirror = annotations.count("kubernetes.io/config.mirror") > 0;
  if (auto it = annotations.find("pod-group-name");
      it != annotations.end() && !it->second.empty()) {
    pod.gang = raw.namespace_name + "/" + it->second;
  }
  if (raw.labels.count(std::string(kStepLabel)) > 0) {
    Result<ObservedStep> found = StepOf(raw, doc);
    if (!found.ok()) return found.status();
    ObservedStep step = std::move(found).value();
    const std::string phase = Text(doc, {"status", "phase"});
    if (phase == "Succeeded") step.phase = StepPhase::kSucceeded;
    if (phase == "Failed") {
      step.phase = StepPhase::kFailed;
      step.message = TerminationMessage(doc);
    }
    pod.step = std::move(step);
  }
  return pod;
}

Result<ObservedStep> DecodeStepJob(const kubeclient::RawObject& raw) {
  Result<Value> parsed = Parse(raw);
  if (!parsed.ok()) return parsed.status();
  Result<ObservedStep> found = StepOf(raw, *parsed);
  if (!found.ok()) return found;
  ObservedStep step = std::move(found).value();
  if (const Value* conditions = At(*parsed, {"status", "conditions"})) {
    for (const Value& c : conditions->items()) {
      if (Text(c, {"status"}) != "True") continue;
      const std::string type = Text(c, {"type"});
      if (type == "Complete") step.phase = StepPhase::kSucceeded;
      if (type == "Failed") {
        step.phase = StepPhase::kFailed;
        step.message = "job failed: " + Text(c, {"reason"}) + ": " + Text(c, {"message"});
      }
    }
  }
  return step;
}

Result<ObservedStep> DecodeStepResult(const kubeclient::RawObject& raw) {
  Result<Value> parsed = Parse(raw);
  if (!parsed.ok()) return parsed.status();
  Result<ObservedStep> found = StepOf(raw, *parsed);
  if (!found.ok()) return found;
  ObservedStep step = std::move(found).value();
  const std::string status = Text(*parsed, {"data", std::string_view(kStepResultStatusKey)});
  step.phase = status == "succeeded" ? StepPhase::kSucceeded : StepPhase::kFailed;
  step.message = Text(*parsed, {"data", std::string_view(kStepResultMessageKey)});
  return step;
}

}  // namespace quotient::remediator
