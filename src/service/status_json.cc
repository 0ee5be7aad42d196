#include "service/status_json.h"

#include <nlohmann/json.hpp>

#include "core/time_text.h"

namespace quotient::service {
namespace {

// Kubernetes quantity text for one share resource: GPUs and CPU in milli-units ("2", "500m"),
// memory in bytes.
std::string QuantityText(core::ShareResource r, core::Quantity q) {
  if (r == core::ShareResource::kMemory) return std::to_string(q.value());
  if (q.value() % 1000 == 0) return std::to_string(q.value() / 1000);
  return std::to_string(q.value()) + "m";
}

std::string ResourceName(core::ShareResource r) {
  switch (r) {
    case core::ShareResource::kGpu:
      return "nvidia.com/gpu";
    case core::ShareResource::kCpu:
      return "cpu";
    case core::ShareResource::kMemory:
      return "memory";
  }
  return "unknown";
}

nlohmann::json ResourceList(const core::ShareVector& v) {
  nlohmann::json list = nlohmann::json::object();
  for (core::ShareResource r : core::kShareResources) list[ResourceName(r)] = QuantityText(r, v[r]);
  return list;
}

}  // namespace

QueueCondition QueueCondition::Of(const scheduler::QueueReport& queue) {
  const auto joined = [](const std::vector<std::string>& texts) {
    std::string out;
    for (const std::string& t : texts) out += (out.empty() ? "" : "; ") + t;
    return out;
  };
  QueueCondition c;
  if (!queue.problems.empty()) {
    c.valid = false;
    c.reason = "Unusable";
    c.message = joined(queue.problems) + "; the queue's jobs are not scheduled";
  } else if (!queue.warnings.empty()) {
    c.reason = "AcceptedWithWarnings";
    c.message = joined(queue.warnings);
  }
  return c;
}

std::string QueueStatusJson(const scheduler::QueueReport& queue, const QueueCondition& condition) {
  nlohmann::json status = {
      {"allocated", ResourceList(queue.allocated)},
      {"allocatedNonPreemptible", ResourceList(queue.allocated_non_preemptible)},
      {"requested", ResourceList(queue.requested)},
      {"childQueues", queue.children},
      {"fairShare", ResourceList(queue.fair_share)},
      {"conditions",
       nlohmann::json::array({{{"type", "Valid"},
                               {"status", condition.valid ? "True" : "False"},
                               {"reason", condition.reason},
                               {"message", condition.message},
                               {"lastTransitionTime", core::FormatRfc3339(condition.since)}}})}};
  return status.dump();
}

std::pair<std::string, std::string> SplitReason(const std::string& text) {
  const size_t colon = text.find(": ");
  bool camel =
      colon != std::string::npos && colon > 0 && std::isupper(static_cast<unsigned char>(text[0]));
  for (size_t i = 0; camel && i < colon; ++i) {
    camel = std::isalnum(static_cast<unsigned char>(text[i])) != 0;
  }
  if (!camel) return {"PodSchedulingErrors", text};
  return {text.substr(0, colon), text.substr(colon + 2)};
}

std::string PodGroupStatusJson(const scheduler::PodGroupReport& group,
                               const std::optional<SchedulingCondition>& condition,
                               bool clear_conditions) {
  nlohmann::json status = {
      {"resourcesStatus",
       {{"allocated", ResourceList(group.allocated)},
        {"allocatedNonPreemptible", ResourceList(group.allocated_non_preemptible)},
        {"requested", ResourceList(group.requested)}}}};
  if (condition) {
    nlohmann::json reasons = nlohmann::json::array();
    std::string message;
    for (const std::string& text : condition->reasons) {
      auto [reason, detail] = SplitReason(text);
      reasons.push_back({{"reason", reason}, {"message", detail}});
      message += (message.empty() ? "" : "; ") + text;
    }
    status["schedulingConditions"] = nlohmann::json::array(
        {{{"type", "UnschedulableOnNodePool"},
          {"nodePool", condition->node_pool.empty() ? "default" : condition->node_pool},
          {"reason", "Unschedulable"},
          {"message", message},
          {"reasons", reasons},
          {"transitionID", std::to_string(condition->transition_id)},
          {"lastTransitionTime", core::FormatRfc3339(condition->since)},
          {"status", "True"}}});
  } else if (clear_conditions) {
    status["schedulingConditions"] = nlohmann::json::array();
  }
  return status.dump();
}

}  // namespace quotient::service
