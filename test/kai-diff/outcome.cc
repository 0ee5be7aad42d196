#include "outcome.h"

namespace quotient::kaidiff {
namespace {

using nlohmann::json;

std::string StringOr(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

Amounts ReadAmounts(const json& queue, const char* key) {
  Amounts out;
  auto it = queue.find(key);
  if (it == queue.end() || !it->is_object()) return out;
  for (size_t r = 0; r < kResourceNames.size(); ++r) {
    auto v = it->find(kResourceNames[r]);
    if (v != it->end() && v->is_number()) out[r] = v->get<double>();
  }
  return out;
}

// Adds each (node, group) of `entry`'s gpuGroups to `by_device`.
void CollectGroups(
    const json& entry, const std::string& node,
    std::map<std::pair<std::string, std::string>, std::set<std::string>>& by_device) {
  auto groups = entry.find("gpuGroups");
  if (groups == entry.end() || !groups->is_array()) return;
  for (const json& g : *groups) {
    by_device[{node, g.get<std::string>()}].insert(entry.at("pod").get<std::string>());
  }
}

Sharing ToSharing(
    const std::map<std::pair<std::string, std::string>, std::set<std::string>>& by_device) {
  Sharing out;
  for (const auto& [device, pods] : by_device) out.insert(pods);
  return out;
}

}  // namespace

Outcome ReadOutcome(const json& report) {
  Outcome out;
  for (const json& cycle : report.at("cycles")) {
    CycleOutcome c;
    std::map<std::pair<std::string, std::string>, std::set<std::string>> by_device;
    for (const json& d : cycle.at("decisions")) {
      Decision decision{StringOr(d, "action"), StringOr(d, "kind"), StringOr(d, "pod"),
                        StringOr(d, "node")};
      if (decision.kind != "evict") CollectGroups(d, decision.node, by_device);
      c.decisions.insert(std::move(decision));
    }
    c.sharing = ToSharing(by_device);
    out.cycles.push_back(std::move(c));
  }
  std::map<std::pair<std::string, std::string>, std::set<std::string>> by_device;
  for (const json& p : report.at("pods")) {
    PodOutcome pod{StringOr(p, "status"), StringOr(p, "node"), StringOr(p, "queue"),
                   StringOr(p, "podGroup")};
    if (pod.status == "Running" || pod.status == "Bound" || pod.status == "Pipelined") {
      CollectGroups(p, pod.node, by_device);
    }
    out.pods[p.at("pod").get<std::string>()] = pod;
  }
  out.final_sharing = ToSharing(by_device);
  for (const json& g : report.at("podGroups")) {
    out.pod_groups[g.at("podGroup").get<std::string>()] = StringOr(g, "status");
  }
  for (const json& q : report.at("queues")) {
    out.queues[q.at("name").get<std::string>()] = {
        ReadAmounts(q, "fairShare"), ReadAmounts(q, "allocated"), ReadAmounts(q, "requested")};
  }
  return out;
}

}  // namespace quotient::kaidiff
