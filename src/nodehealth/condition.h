// What the evaluation concludes: node conditions (problem polarity, as Node Problem Detector and
// NVSentinel: True = fault, False = healthy, Unknown = the agent cannot observe), the faults
// behind them, Events for signals that are not conditions, and per-GPU health.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nodehealth/policy.h"
#include "nodehealth/signals.h"

namespace quotient::nodehealth {

enum class ConditionType {
  kGpuXidFatal,
  kGpuLost,
  kGpuMemoryDegraded,
  kGpuNvlinkDegraded,
  kGpuPcieDegraded,
  kIbPortDegraded,
  kGpuDriverUnresponsive,
  kGpuRemediationRequired,
};

inline constexpr std::array<ConditionType, 8> kAllConditionTypes = {
    ConditionType::kGpuXidFatal,           ConditionType::kGpuLost,
    ConditionType::kGpuMemoryDegraded,     ConditionType::kGpuNvlinkDegraded,
    ConditionType::kGpuPcieDegraded,       ConditionType::kIbPortDegraded,
    ConditionType::kGpuDriverUnresponsive, ConditionType::kGpuRemediationRequired,
};

// The Node condition type, e.g. "GpuXidFatal".
std::string_view ConditionTypeName(ConditionType type);
std::optional<ConditionType> ParseConditionType(std::string_view name);

enum class ConditionStatus { kTrue, kFalse, kUnknown };
std::string_view ConditionStatusName(ConditionStatus status);  // "True", "False", "Unknown"

struct NodeCondition {
  ConditionType type = ConditionType::kGpuXidFatal;
  ConditionStatus status = ConditionStatus::kFalse;
  std::string reason;   // CamelCase: Xid79, RowRemapPending, GpuMemoryHealthy, NvmlUnavailable
  std::string message;  // "[gpu=<uuid> bdf=<bdf> code=<n>] <text> - RecommendedAction: <ACTION>"
  int64_t last_transition_s = 0;  // when the status last changed
};

// A raised fault, with what the policy says about it: the controller's input.
struct Fault {
  ConditionType type = ConditionType::kGpuXidFatal;
  std::string subject;  // gpu/<bdf>, ib/<dev>/<port>, nvswitch/<bdf>, nic/<bdf> or node
  std::string reason;
  Signal signal = Signal::kXidUnknown;
  Scope scope = Scope::kNode;
  std::vector<std::string> ladder;
  std::optional<int> code;
  std::string message;
  int64_t since_s = 0;
};

// A Kubernetes Event: non-fatal signals (application XIDs, bursts, rates over a threshold in a
// window not yet sustained, kernel-log gaps).
struct HealthEvent {
  std::string reason;
  std::string message;
  std::string subject;
  bool warning = true;  // type Warning; Normal otherwise
};

enum class GpuHealthState { kHealthy, kUnhealthy, kUnknown };
std::string_view GpuHealthStateName(GpuHealthState state);  // "Healthy", "Unhealthy", "Unknown"

struct GpuHealth {
  int index = 0;
  std::string uuid;
  std::string bdf;
  GpuHealthState state = GpuHealthState::kHealthy;
  std::vector<std::string> reasons;  // of its raised faults, sorted; "Missing" when not seen
};

}  // namespace quotient::nodehealth
