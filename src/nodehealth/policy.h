// The fault-to-action policy as data (../shared/docs/gpu-isolation-and-health.md section 2.6):
// per signal, how a fault is confirmed, what it takes out of service and the ladder of actions
// that repairs it; plus the thresholds the evaluation applies. DefaultPolicy() is the doc's
// table; ParsePolicyYaml overlays what a ConfigMap carries (README.md, "Policy").
//
// The evaluation reads the policy; the remediation controller reads the same ladders to pick its
// next rung. Nothing here performs an action.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "nodehealth/signals.h"

namespace quotient::nodehealth {

enum class Scope { kGpu, kNode };

enum class ConfirmKind {
  kImmediate,  // the first observation raises the fault
  kPolls,      // `count` consecutive polls must show it
  kWindows,    // rate signals: `count` consecutive windows over the threshold
};

struct SignalPolicy {
  Scope scope = Scope::kNode;
  ConfirmKind confirm = ConfirmKind::kImmediate;
  int count = 1;
  // Rate signals only: a window of this many seconds is bad when the counter grew by more than
  // max_per_window within it.
  int64_t window_seconds = 0;
  int64_t max_per_window = 0;
  std::vector<std::string> ladder;  // action names, first rung first

  // How many consecutive polls must show a (non-rate) fault before it is raised.
  int ConfirmPolls() const { return confirm == ConfirmKind::kPolls ? count : 1; }
};

struct RateRule {
  int64_t window_seconds = 0;
  int64_t max_per_window = 0;
};

struct Policy {
  // A raised fault clears after this many consecutive healthy observations (or a passed
  // validation). Faults from one-off events (XIDs, fallen off the bus) only clear by validation
  // or reboot.
  int healthy_polls_to_clear = 3;
  std::array<SignalPolicy, kAllSignals.size()> signals;
  // Overrides of the catalogue: XID code -> signal, or nullopt to make the code an Event only.
  std::map<int, std::optional<Signal>> xid_signals;
  // Events only: a burst of corrected (single-bit) ECC errors.
  RateRule sbe_burst{3600, 100};
  // Events only: the same application XID on one GPU this many times within the window.
  int64_t app_xid_repeat_window_seconds = 86400;
  int app_xid_repeat_count = 3;

  const SignalPolicy& Of(Signal signal) const { return signals[static_cast<size_t>(signal)]; }
  SignalPolicy& Of(Signal signal) { return signals[static_cast<size_t>(signal)]; }
};

Policy DefaultPolicy();

// Overlays a YAML document on `base`: only the keys present change. An error names the key and
// the field at fault ("signals.pcie-width.count: must be an integer >= 1, got 'two'").
Result<Policy> ParsePolicyYaml(std::string_view yaml, const Policy& base = DefaultPolicy());

// The policy as the YAML document ParsePolicyYaml reads (all keys), for `--print-policy` and
// the README's defaults.
std::string PolicyToYaml(const Policy& policy);

std::string_view ScopeName(Scope scope);

}  // namespace quotient::nodehealth
