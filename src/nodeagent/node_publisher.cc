#include "nodeagent/node_publisher.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/node_health.h"
#include "core/time_text.h"
#include "nodehealth/gpu_health.h"
#include "remediation/record_codec.h"

namespace quotient::nodeagent {

namespace {

using nlohmann::json;

std::string Rfc3339(int64_t s) { return core::FormatRfc3339(core::Time(std::chrono::seconds(s))); }

std::string Key(const nodehealth::NodeCondition& c) {
  return std::string(nodehealth::ConditionStatusName(c.status)) + "|" + c.reason + "|" + c.message;
}

json ConditionJson(const nodehealth::NodeCondition& c, int64_t now_s) {
  return {{"type", std::string(nodehealth::ConditionTypeName(c.type))},
          {"status", std::string(nodehealth::ConditionStatusName(c.status))},
          {"reason", c.reason.empty() ? std::string("Unknown") : c.reason},
          {"message", c.message},
          {"lastHeartbeatTime", Rfc3339(now_s)},
          {"lastTransitionTime", Rfc3339(c.last_transition_s > 0 ? c.last_transition_s : now_s)}};
}

}  // namespace

std::string NodePublisher::GpuHealthValue(const nodehealth::Evaluation& evaluation) {
  // The reasons of faults the policy scopes to a GPU, unless the same reason is also raised at
  // node scope: the scheduler keeps a node whose faults are all confined, minus those GPUs.
  std::set<std::string> gpu_scoped;
  std::set<std::string> node_scoped;
  for (const nodehealth::Fault& f : evaluation.faults) {
    (f.scope == nodehealth::Scope::kGpu ? gpu_scoped : node_scoped).insert(f.reason);
  }
  json confined = json::array();
  for (const std::string& reason : gpu_scoped) {
    if (node_scoped.count(reason) == 0) confined.push_back(reason);
  }
  json value = json::parse(nodehealth::GpuHealthAnnotation(evaluation.gpus));
  value["confined"] = std::move(confined);
  return value.dump();
}

NodePublisher::NodePublisher(kubeclient::Client& client, std::string node_name,
                             std::chrono::seconds heartbeat)
    : client_(client), node_(std::move(node_name)), heartbeat_(heartbeat) {
  events_ = std::make_unique<kubeclient::EventRecorder>(client_, "quotient-node-agent", node_);
  events_->Start();
}

NodePublisher::~NodePublisher() = default;

std::string NodePublisher::ConditionsPatch(const nodehealth::Evaluation& evaluation,
                                           int64_t now_s) {
  json conditions = json::array();
  for (const nodehealth::NodeCondition& c : evaluation.conditions) {
    conditions.push_back(ConditionJson(c, now_s));
  }
  return json{{"status", {{"conditions", conditions}}}}.dump();
}

Result<std::optional<std::string>> NodePublisher::Label(const std::string& key) {
  using Answer = Result<std::optional<std::string>>;
  auto node = client_.Get(kubeclient::resources::Nodes(), "", node_);
  if (!node.ok()) return Answer::Error("node " + node_ + ": " + node.error().Describe());
  auto it = node->labels.find(key);
  if (it == node->labels.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second);
}

Result<std::optional<int64_t>> NodePublisher::ValidationPassedAt() {
  using Answer = Result<std::optional<int64_t>>;
  auto node = client_.Get(kubeclient::resources::Nodes(), "", node_);
  if (!node.ok()) return Answer::Error("node " + node_ + ": " + node.error().Describe());
  const json doc = json::parse(node->json, nullptr, false);
  if (!doc.is_object()) return Answer::Error("node " + node_ + ": not JSON");
  const json annotations =
      doc.value("metadata", json::object()).value("annotations", json::object());
  const std::string text = annotations.value(std::string(remediation::kRecordAnnotation), "");
  if (text.empty()) return std::optional<int64_t>();
  Result<remediation::NodeRecord> record = remediation::DecodeRecord(text);
  if (!record.ok()) {
    return Answer::Error("node " + node_ + ": annotation " +
                         std::string(remediation::kRecordAnnotation) + ": " + record.message());
  }
  if (!record->hold_down_since) return std::optional<int64_t>();
  return std::optional<int64_t>(record->hold_down_since->time_since_epoch().count());
}

Status NodePublisher::Publish(const nodehealth::Evaluation& evaluation, int64_t now_s) {
  const std::string where = "node " + node_;
  if (uid_.empty()) {
    auto node = client_.Get(kubeclient::resources::Nodes(), "", node_);
    if (!node.ok()) return Status::Error(where + ": " + node.error().Describe());
    uid_ = node->uid;
  }
  bool changed = now_s - last_heartbeat_s_ >= heartbeat_.count();
  for (const nodehealth::NodeCondition& c : evaluation.conditions) {
    auto it = written_.find(std::string(nodehealth::ConditionTypeName(c.type)));
    if (it == written_.end() || it->second != Key(c)) changed = true;
  }
  if (changed) {
    auto patched = client_.Patch(kubeclient::resources::Nodes(), "", node_,
                                 kubeclient::PatchType::kStrategicMerge,
                                 ConditionsPatch(evaluation, now_s), "status");
    if (!patched.ok()) {
      return Status::Error(where + ": conditions: " + patched.error().Describe());
    }
    for (const nodehealth::NodeCondition& c : evaluation.conditions) {
      written_[std::string(nodehealth::ConditionTypeName(c.type))] = Key(c);
    }
    last_heartbeat_s_ = now_s;
  }
  const std::string annotation = GpuHealthValue(evaluation);
  if (annotation != annotation_) {
    const json patch = {
        {"metadata", {{"annotations", {{std::string(core::kGpuHealthAnnotation), annotation}}}}}};
    auto patched = client_.Patch(kubeclient::resources::Nodes(), "", node_,
                                 kubeclient::PatchType::kMerge, patch.dump());
    if (!patched.ok()) {
      return Status::Error(where + ": annotation: " + patched.error().Describe());
    }
    annotation_ = annotation;
  }
  for (const nodehealth::HealthEvent& e : evaluation.events) {
    events_->Record({{"v1", "Node", "", node_, uid_},
                     e.warning ? "Warning" : "Normal",
                     e.reason,
                     "NodeHealthCheck",
                     e.subject.empty() ? e.message : "[" + e.subject + "] " + e.message});
  }
  return Status::Ok();
}

}  // namespace quotient::nodeagent
