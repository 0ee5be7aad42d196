#include "nodehealth/condition.h"

namespace quotient::nodehealth {
namespace {

constexpr std::array<std::string_view, kAllConditionTypes.size()> kTypeNames = {
    "GpuXidFatal",     "GpuLost",        "GpuMemoryDegraded",     "GpuNvlinkDegraded",
    "GpuPcieDegraded", "IbPortDegraded", "GpuDriverUnresponsive", "GpuRemediationRequired",
};

}  // namespace

std::string_view ConditionTypeName(ConditionType type) {
  return kTypeNames[static_cast<size_t>(type)];
}

std::optional<ConditionType> ParseConditionType(std::string_view name) {
  for (ConditionType type : kAllConditionTypes) {
    if (ConditionTypeName(type) == name) return type;
  }
  return std::nullopt;
}

std::string_view ConditionStatusName(ConditionStatus status) {
  switch (status) {
    case ConditionStatus::kTrue:
      return "True";
    case ConditionStatus::kFalse:
      return "False";
    case ConditionStatus::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

std::string_view GpuHealthStateName(GpuHealthState state) {
  switch (state) {
    case GpuHealthState::kHealthy:
      return "Healthy";
    case GpuHealthState::kUnhealthy:
      return "Unhealthy";
    case GpuHealthState::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

}  // namespace quotient::nodehealth
