// Reading the agent's conditions against the policy, and the small formatting helpers of the
// messages and ids Decide writes.
#include <algorithm>
#include <cstdio>
#include <tuple>

#include "core/time_text.h"
#include "remediation/machine.h"

namespace quotient::remediation {

std::vector<ActiveFault> ActiveFaults(const NodeView& node, const Config& config) {
  std::vector<ActiveFault> faults;
  for (const FaultCondition& c : node.conditions) {
    // Only True is a fault: Unknown means the agent could not look, and we never act on that
    // alone (a dead agent must not drain the fleet).
    if (c.status != ConditionStatus::kTrue) continue;
    const auto it = config.policy.find(c.type);
    if (it == config.policy.end()) continue;
    const auto& ignored = it->second.ignore_reasons;
    if (std::find(ignored.begin(), ignored.end(), c.reason) != ignored.end()) continue;
    faults.push_back({&c, &it->second});
  }
  std::sort(faults.begin(), faults.end(), [](const ActiveFault& a, const ActiveFault& b) {
    return std::tie(a.policy->confirm, a.condition->type) <
           std::tie(b.policy->confirm, b.condition->type);
  });
  return faults;
}

Time ConfirmStart(const ActiveFault& fault, const NodeRecord& record, Time now) {
  const Time t = fault.condition->last_transition;
  if (t == Time{} || t > now) return record.incident_opened;
  return t;
}

const std::vector<Rung>& LadderFor(const Config& config, const NodeRecord& record) {
  static const std::vector<Rung> kNone;
  const auto it = config.policy.find(record.fault_class);
  if (it == config.policy.end()) return kNone;
  const auto by_reason = it->second.reason_ladders.find(record.fault_reason);
  if (by_reason != it->second.reason_ladders.end()) return by_reason->second;
  return it->second.ladder;
}

std::vector<Evidence> CaptureEvidence(const NodeView& node) {
  std::vector<Evidence> evidence;
  for (const FaultCondition& c : node.conditions) {
    if (c.status != ConditionStatus::kTrue) continue;
    evidence.push_back({c.type, c.reason, c.message, c.last_transition});
  }
  std::sort(evidence.begin(), evidence.end(),
            [](const Evidence& a, const Evidence& b) { return a.type < b.type; });
  return evidence;
}

std::string FaultLabel(const FaultCondition& condition) {
  return condition.reason.empty() ? condition.type : condition.type + "/" + condition.reason;
}

std::string FormatDuration(Duration d) {
  if (d.count() == 0) return "0s";
  std::string text = d.count() < 0 ? "-" : "";
  long long left = d.count() < 0 ? -d.count() : d.count();
  constexpr std::array<std::pair<long long, char>, 4> kUnits = {
      {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}}};
  for (const auto& [seconds, unit] : kUnits) {
    if (left >= seconds) {
      text += std::to_string(left / seconds) + unit;
      left %= seconds;
    }
  }
  return text;
}

std::string IncidentId(Time opened) {
  // "2025-01-02T03:04:05Z" -> "20250102-030405": a DNS label, usable in object names.
  const std::string t = core::FormatRfc3339(opened);
  std::string id;
  for (char c : t.substr(0, 10)) {
    if (c != '-') id += c;
  }
  id += '-';
  for (char c : t.substr(11, 8)) {
    if (c != ':') id += c;
  }
  return id;
}

}  // namespace quotient::remediation
