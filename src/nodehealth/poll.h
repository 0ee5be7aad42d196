// Internal to the evaluation (evaluate.h): one poll being evaluated, and the checks that turn
// observations into findings. A finding is "this fault is present now"; the fault tracker in
// evaluate.cc applies the policy's confirm and clear rules to findings across polls.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nodehealth/condition.h"
#include "nodehealth/health_state.h"
#include "nodehealth/observations.h"
#include "nodehealth/policy.h"
#include "nodehealth/rate_window.h"
#include "nodehealth/xid_catalog.h"

namespace quotient::nodehealth {

struct Finding {
  ConditionType type = ConditionType::kGpuXidFatal;
  std::string subject;
  std::string reason;
  Signal signal = Signal::kXidUnknown;
  std::optional<int> code;
  std::string message;
  std::string domain;
  bool sticky = false;
};

struct Poll {
  const NodeObservation& observation;
  const Policy& policy;
  const XidCatalog& catalog;
  int64_t now_s;
  HealthState& state;
  std::map<std::string, Finding> findings;  // by fault key: two sources of one fault merge
  std::vector<HealthEvent> events;
  std::set<std::string> observed;  // the domains this poll could see
  bool nvml_ok = false;
  bool no_gpus = false;  // no NVML and no GPU expected or seen: a CPU node

  void Raise(Finding finding);
  void Event(std::string reason, std::string subject, std::string message, bool warning = true);
  bool Observed(const std::string& domain) const { return observed.count(domain) > 0; }

  // "[gpu=<uuid> bdf=<bdf> code=<n>]", the uuid from this boot's inventory ("unknown" if none).
  std::string GpuTag(const std::string& bdf, std::optional<int> code = std::nullopt) const;
  // "<tag> <text> - RecommendedAction: <first rung of the signal's ladder>".
  std::string Message(const std::string& tag, const std::string& text, Signal signal) const;
  std::string Message(const std::string& tag, const std::string& text,
                      const std::string& action_label) const;
  // The counter's window for `key`, updated with `value`.
  WindowVerdict Window(const std::string& key, int64_t value, const RateRule& rule);
  RateRule RuleOf(Signal signal) const;
};

// The key of a GPU: its normalised bdf; its uuid, then "index-<n>", when the address is unread.
std::string GpuKey(const GpuObservation& gpu);
std::string RecoveryActionLabel(RecoveryAction action);  // GPU_RESET, REBOOT, DRAIN_P2P, ...

// The checks, in the order Evaluate runs them.
void CheckNvml(Poll& poll);          // driver state, inventory, GPU count (gpu_checks.cc)
void CheckGpus(Poll& poll);          // memory, NVLink, PCIe of each GPU (gpu_checks.cc)
void CheckKernelEvents(Poll& poll);  // XIDs from NVML and the kernel log, SXid, ... (xid_checks.cc)
void CheckRecoveryActions(Poll& poll);  // the driver's recovery hint (gpu_checks.cc)
void CheckInfiniband(Poll& poll);       // ports from sysfs (ib_checks.cc)

}  // namespace quotient::nodehealth
