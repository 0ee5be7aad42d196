#include "nodehealth/evaluate.h"

#include <algorithm>

#include "nodehealth/poll.h"

namespace quotient::nodehealth {
namespace {

// A passed validation vouches for the node as it is now: every fault, window run and driver
// hint is forgotten. What is still wrong shows up again in this very poll.
void ApplyValidation(const NodeObservation& o, HealthState& state) {
  if (!o.validation_passed_at_s) return;
  if (state.last_validation_s && *o.validation_passed_at_s <= *state.last_validation_s) return;
  state.last_validation_s = o.validation_passed_at_s;
  state.faults.clear();
  state.stated_recovery.clear();
  state.app_xids.clear();
  for (auto& [key, window] : state.windows) {
    window.bad_windows = 0;
    window.current_bad = false;
    window.start_value = window.last_value;
  }
}

// Confirm and clear (evaluate.h rules 1-3).
void TrackFaults(Poll& p) {
  HealthState& state = p.state;
  for (auto& [key, finding] : p.findings) {
    auto [it, inserted] = state.faults.try_emplace(key);
    FaultRecord& r = it->second;
    if (inserted) {
      r.type = finding.type;
      r.subject = finding.subject;
      r.reason = finding.reason;
      r.first_seen_s = p.now_s;
    }
    r.signal = finding.signal;
    r.code = finding.code;
    r.message = finding.message;
    r.domain = finding.domain;
    r.sticky = r.sticky || finding.sticky;
    r.consecutive_bad += 1;
    r.consecutive_good = 0;
    if (!r.active && r.consecutive_bad >= p.policy.Of(r.signal).ConfirmPolls()) {
      r.active = true;
      r.active_since_s = p.now_s;
    }
  }
  for (auto it = state.faults.begin(); it != state.faults.end();) {
    FaultRecord& r = it->second;
    const bool untouched =
        p.findings.count(it->first) > 0 || (r.active && r.sticky) || !p.Observed(r.domain);
    if (untouched) {
      ++it;
      continue;
    }
    // A healthy observation: the confirm run is broken, and a raised fault counts toward clearing.
    r.consecutive_bad = 0;
    const bool cleared = !r.active || ++r.consecutive_good >= p.policy.healthy_polls_to_clear;
    it = cleared ? state.faults.erase(it) : std::next(it);
  }
}

std::vector<const FaultRecord*> ActiveOfType(const HealthState& state, ConditionType type) {
  std::vector<const FaultRecord*> active;
  for (const auto& [key, r] : state.faults) {
    if (r.active && r.type == type) active.push_back(&r);
  }
  // The oldest first, ties by key (the map's order, kept by the stable sort).
  std::stable_sort(active.begin(), active.end(), [](const FaultRecord* a, const FaultRecord* b) {
    return a->active_since_s < b->active_since_s;
  });
  return active;
}

const char* HealthyReason(ConditionType type) {
  switch (type) {
    case ConditionType::kGpuXidFatal:
      return "NoFatalXid";
    case ConditionType::kGpuLost:
      return "AllGpusPresent";
    case ConditionType::kGpuMemoryDegraded:
      return "GpuMemoryHealthy";
    case ConditionType::kGpuNvlinkDegraded:
      return "NvlinkHealthy";
    case ConditionType::kGpuPcieDegraded:
      return "PcieHealthy";
    case ConditionType::kIbPortDegraded:
      return "IbPortsHealthy";
    case ConditionType::kGpuDriverUnresponsive:
      return "NvmlResponsive";
    case ConditionType::kGpuRemediationRequired:
      return "NoRemediationRequired";
  }
  return "Healthy";
}

// Why the agent cannot tell, when it cannot (rule 3); nothing when it can.
std::optional<NodeCondition> Unobservable(const Poll& p, ConditionType type) {
  const NodeObservation& o = p.observation;
  std::string nvml =
      o.nvml.call + (o.nvml.call.empty() || o.nvml.detail.empty() ? "" : ": ") + o.nvml.detail;
  nvml = "NVML unavailable" + (nvml.empty() ? std::string() : " (" + nvml + ")");
  switch (type) {
    case ConditionType::kIbPortDegraded:
      if (o.infiniband_readable) return std::nullopt;
      return NodeCondition{type, ConditionStatus::kUnknown, "SysfsUnreadable",
                           "[node] InfiniBand sysfs could not be read", 0};
    case ConditionType::kGpuDriverUnresponsive:
      return std::nullopt;
    case ConditionType::kGpuXidFatal:
    case ConditionType::kGpuRemediationRequired:
      // The kernel log is a second source of XIDs and recovery hints.
      if (p.nvml_ok || p.no_gpus || o.kernel_log_readable) return std::nullopt;
      return NodeCondition{type, ConditionStatus::kUnknown, "NvmlUnavailable",
                           "[node] " + nvml + " and the kernel log unreadable", 0};
    default:
      if (p.nvml_ok || p.no_gpus) return std::nullopt;
      return NodeCondition{type, ConditionStatus::kUnknown, "NvmlUnavailable", "[node] " + nvml, 0};
  }
}

NodeCondition BuildCondition(const Poll& p, ConditionType type) {
  const std::vector<const FaultRecord*> active = ActiveOfType(p.state, type);
  if (!active.empty()) {
    std::string message;
    const size_t listed = std::min(active.size(), static_cast<size_t>(kMaxListedFaults));
    for (size_t i = 0; i < listed; ++i) message += (i == 0 ? "" : "; ") + active[i]->message;
    if (active.size() > listed) {
      message += "; and " + std::to_string(active.size() - listed) + " more";
    }
    return NodeCondition{type, ConditionStatus::kTrue, active.front()->reason, message, 0};
  }
  if (std::optional<NodeCondition> unknown = Unobservable(p, type)) return *unknown;
  const bool gpu_type = type != ConditionType::kIbPortDegraded;
  if (p.no_gpus && gpu_type) {
    return NodeCondition{type, ConditionStatus::kFalse, "NoGpus", "[node] no GPUs on this node", 0};
  }
  return NodeCondition{type, ConditionStatus::kFalse, HealthyReason(type), "", 0};
}

std::vector<GpuHealth> BuildGpuHealth(const Poll& p) {
  std::vector<GpuHealth> gpus;
  for (const auto& [key, known] : p.state.gpus) {
    GpuHealth h{known.index, known.uuid, key, GpuHealthState::kHealthy, {}};
    for (const auto& [fault_key, r] : p.state.faults) {
      if (r.active && r.subject == "gpu/" + key) h.reasons.push_back(r.reason);
    }
    std::sort(h.reasons.begin(), h.reasons.end());
    const bool present = std::any_of(p.observation.gpus.begin(), p.observation.gpus.end(),
                                     [&](const GpuObservation& g) { return GpuKey(g) == key; });
    if (!h.reasons.empty()) {
      h.state = GpuHealthState::kUnhealthy;
    } else if (!p.nvml_ok) {
      h.state = GpuHealthState::kUnknown;
    } else if (!present) {
      h.state = GpuHealthState::kUnhealthy;
      h.reasons.push_back("Missing");
    }
    gpus.push_back(std::move(h));
  }
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const GpuHealth& a, const GpuHealth& b) { return a.index < b.index; });
  return gpus;
}

std::vector<Fault> RaisedFaults(const Poll& p) {
  std::vector<Fault> faults;
  for (const auto& [key, r] : p.state.faults) {
    if (!r.active) continue;
    const SignalPolicy& sp = p.policy.Of(r.signal);
    faults.push_back(Fault{r.type, r.subject, r.reason, r.signal, sp.scope, sp.ladder, r.code,
                           r.message, r.active_since_s});
  }
  return faults;
}

}  // namespace

Evaluation Evaluate(const NodeObservation& observation, const HealthState& previous,
                    const Policy& policy, int64_t now_s, const XidCatalog& catalog) {
  Evaluation result;
  result.state = previous;
  Poll p{observation, policy, catalog, now_s, result.state, {}, {}, {}, false, false};
  ApplyValidation(observation, p.state);
  p.observed.insert("always");
  if (observation.kernel_log_readable) p.observed.insert("kmsg");
  if (observation.infiniband_readable) p.observed.insert("ib");
  CheckNvml(p);
  CheckGpus(p);
  CheckKernelEvents(p);
  CheckRecoveryActions(p);
  CheckInfiniband(p);
  TrackFaults(p);
  for (ConditionType type : kAllConditionTypes) {
    NodeCondition condition = BuildCondition(p, type);
    auto [it, inserted] = p.state.conditions.try_emplace(type);
    if (inserted || it->second.status != condition.status) {
      it->second = ConditionRecord{condition.status, now_s};
    }
    condition.last_transition_s = it->second.since_s;
    result.conditions.push_back(std::move(condition));
  }
  result.faults = RaisedFaults(p);
  result.events = std::move(p.events);
  result.gpus = BuildGpuHealth(p);
  p.state.last_poll_s = now_s;
  return result;
}

}  // namespace quotient::nodehealth
