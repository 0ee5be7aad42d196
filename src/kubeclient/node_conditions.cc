#include "kubeclient/node_conditions.h"

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include <map>

#include "core/time_text.h"

namespace quotient::kubeclient {
namespace {

namespace od = simdjson::ondemand;

struct Existing {
  std::string status;
  std::string last_transition;
};

// type -> (status, lastTransitionTime) of the node's current conditions.
Result<std::map<std::string, Existing>> ExistingConditions(const std::string& json) {
  using R = Result<std::map<std::string, Existing>>;
  std::map<std::string, Existing> out;
  od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return R::Error("Node: not JSON");
  od::array conditions;
  auto status = doc.find_field_unordered("status");
  if (status.error() != simdjson::SUCCESS) return out;
  if (status.find_field_unordered("conditions").get_array().get(conditions) != simdjson::SUCCESS) {
    return out;
  }
  for (auto item : conditions) {
    od::object c;
    if (item.get_object().get(c) != simdjson::SUCCESS) continue;
    std::string type;
    Existing e;
    for (auto field : c) {
      std::string_view key;
      std::string_view text;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) continue;
      if (field.value().get_string().get(text) != simdjson::SUCCESS) continue;
      if (key == "type") type = text;
      if (key == "status") e.status = text;
      if (key == "lastTransitionTime") e.last_transition = text;
    }
    if (!type.empty()) out[type] = e;
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
