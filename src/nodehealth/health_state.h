// The evaluation's memory between polls: consecutive counts, counter windows, raised faults and
// what this boot has seen. Persisted on the host by state.h so that an agent restart continues
// where it stopped, and reset on reboot (a new boot id) because a reboot clears what it measured.
// Plain data; every map is ordered so serialisation and evaluation are deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "nodehealth/condition.h"
#include "nodehealth/kmsg.h"
#include "nodehealth/observations.h"
#include "nodehealth/signals.h"

namespace quotient::nodehealth {

// One fault, raised or on its way to being raised (confirm) or cleared (hysteresis).
struct FaultRecord {
  ConditionType type = ConditionType::kGpuXidFatal;
  std::string subject;
  std::string reason;
  Signal signal = Signal::kXidUnknown;
  std::optional<int> code;
  std::string message;
  // What must be observable for a poll without the fault to count as healthy: "nvml",
  // "gpu/<bdf>", "ib/<dev>/<port>", "ib" (sysfs), "kmsg" or "always". An unobservable poll
  // changes nothing.
  std::string domain;
  bool sticky = false;  // from a one-off event: clears only by validation or reboot
  bool active = false;  // raised
  int consecutive_bad = 0;
  int consecutive_good = 0;
  int64_t first_seen_s = 0;
  int64_t active_since_s = 0;
};

// The key of HealthState::faults: "<type>|<subject>|<reason>".
std::string FaultKey(ConditionType type, const std::string& subject, const std::string& reason);

// A counter judged over fixed windows (rate_window.h).
struct CounterWindow {
  int64_t window_start_s = 0;
  int64_t start_value = 0;
  int64_t last_value = 0;
  int bad_windows = 0;       // consecutive closed windows over the threshold
  bool current_bad = false;  // the open window is already over it
};

struct KnownGpu {
  int index = 0;
  std::string uuid;
};

struct ConditionRecord {
  ConditionStatus status = ConditionStatus::kFalse;
  int64_t since_s = 0;
};

struct RepeatCount {
  int64_t window_start_s = 0;
  int count = 0;
};

struct HealthState {
  std::string boot_id;
  int64_t last_poll_s = 0;
  std::optional<int64_t> last_validation_s;
  TailPosition kernel_log;
  std::map<std::string, FaultRecord> faults;              // by "<type>|<subject>|<reason>"
  std::map<std::string, CounterWindow> windows;           // by "<subject>/<counter>"
  std::map<std::string, int64_t> last_values;             // counters judged by delta per poll
  std::set<std::string> saturated;                        // counters seen stuck at their maximum
  std::map<std::string, KnownGpu> gpus;                   // by bdf: every GPU seen this boot
  std::set<std::string> ib_ports;                         // "<dev>/<port>" seen this boot
  std::set<std::string> active_nvlinks;                   // "<bdf>/<link>" seen active this boot
  std::map<std::string, RecoveryAction> stated_recovery;  // by bdf, from XID 154 lines
  std::map<std::string, RepeatCount> app_xids;            // by "<bdf>/<code>"
  std::map<ConditionType, ConditionRecord> conditions;
};

}  // namespace quotient::nodehealth
