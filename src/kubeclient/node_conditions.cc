#include "kubeclient/node_conditions.h"

#include <nlohmann/json.hpp>

#include <map>

#include "core/time_text.h"
#include "kube/value.h"

namespace quotient::kubeclient {
namespace {

struct Existing {
  std::string status;
  std::string last_transition;
};

// type -> (status, lastTransitionTime) of the node's current conditions.
Result<std::map<std::string, Existing>> ExistingConditions(const std::string& json) {
  using R = Result<std::map<std::string, Existing>>;
  Result<kube::Value> node = kube::ParseJson(json);
  if (!node.ok()) return R::Error("Node: not JSON");
  std::map<std::string, Existing> out;
  const kube::Value* status = node->Find("status");
  const kube::Value* conditions = status != nullptr ? status->Find("conditions") : nullptr;
  if (conditions == nullptr) return out;
  for (const kube::Value& c : conditions->items()) {
    const kube::Value* type = c.Find("type");
    if (type == nullptr || type->text().empty()) continue;
    const kube::Value* state = c.Find("status");
    const kube::Value* transition = c.Find("lastTransitionTime");
    out[type->text()] = {state != nullptr ? state->text() : "",
                         transition != nullptr ? transition->text() : ""};
  }
  return out;
}

}  // namespace

Result<std::string> NodeConditionsPatch(const std::string& current_node_json,
                                        const std::vector<NodeCondition>& conditions,
                                        std::chrono::system_clock::time_point now) {
  Result<std::map<std::string, Existing>> existing = ExistingConditions(current_node_json);
  if (!existing.ok()) return existing.status();
  std::string now_text = core::FormatRfc3339(std::chrono::floor<std::chrono::seconds>(now));
  nlohmann::json list = nlohmann::json::array();
  for (const NodeCondition& c : conditions) {
    std::string transition = now_text;
    if (auto it = existing->find(c.type); it != existing->end() && it->second.status == c.status &&
                                          !it->second.last_transition.empty()) {
      transition = it->second.last_transition;
    }
    list.push_back({{"type", c.type},
                    {"status", c.status},
                    {"reason", c.reason},
                    {"message", c.message},
                    {"lastHeartbeatTime", now_text},
                    {"lastTransitionTime", transition}});
  }
  nlohmann::json patch = {{"status", {{"conditions", list}}}};
  return patch.dump();
}

ApiResult<RawObject> SetNodeConditions(Client& client, const std::string& node,
                                       const std::vector<NodeCondition>& conditions,
                                       std::chrono::system_clock::time_point now) {
  ApiResult<RawObject> current = client.Get(resources::Nodes(), "", node);
  if (!current.ok()) return current;
  Result<std::string> patch = NodeConditionsPatch(current->json, conditions, now);
  if (!patch.ok()) return DecodeError("node " + node + ": " + patch.message());
  return client.Patch(resources::Nodes(), "", node, PatchType::kStrategicMerge, *patch, "status");
}

}  // namespace quotient::kubeclient
