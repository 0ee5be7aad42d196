// The remediator's per-node state and the record it keeps of it (issue 12; design in
// ../shared/docs/gpu-isolation-and-health.md §2.6). The controller persists the record on the
// Node (annotation quotient.dev/remediation, JSON: record_codec.h) and reads it back on every
// reconcile, so Decide itself keeps nothing between calls: what a node went through, and the
// counters the rails need (incidents in the recurrence window, the flap backoff), live here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/objects.h"

namespace quotient::remediation {

using Time = core::Time;  // whole seconds, UTC
using Duration = std::chrono::seconds;

// Healthy -> Suspect -> Cordoned -> Draining -> Remediating -> Validating -> Healthy, or ->
// Escalated (a person repairs). Cancelled: a person opted the node out or uncordoned it while we
// held it; automation leaves it alone until it is healthy again (README.md has the table).
enum class State {
  kHealthy,
  kSuspect,
  kCordoned,
  kDraining,
  kRemediating,
  kValidating,
  kEscalated,
  kCancelled
};

// "healthy", "suspect", ...: the label value quotient.dev/remediation-state and the JSON name.
std::string_view StateName(State state);
std::optional<State> ParseState(std::string_view name);

// The states that hold a remediation slot: the node is out of service and being worked on.
bool HoldsSlot(State state);

// A fault as the agent reported it when the incident was confirmed, before any reset could wipe
// the volatile counters its message quotes: the evidence an escalation carries.
struct Evidence {
  std::string type;  // condition type, e.g. GpuXidFatal
  std::string reason;
  std::string message;
  Time since{};  // the condition's lastTransitionTime
  bool operator==(const Evidence&) const = default;
};

struct HistoryEntry {
  Time at{};
  State state = State::kHealthy;
  std::string note;
  bool operator==(const HistoryEntry&) const = default;
};

// Why a node was cancelled; kept so an opt-out ends when the label goes, while a manual uncordon
// ends only when the fault does (otherwise we would cordon again what the person just released).
inline constexpr std::string_view kCancelOptOut = "opt-out";
inline constexpr std::string_view kCancelManualUncordon = "manual-uncordon";

struct NodeRecord {
  State state = State::kHealthy;
  Time since{};  // when `state` was entered

  // The open incident ("" when none): id (the UTC time it opened, "20250102-030405"), when it
  // opened (entered Suspect), and the fault it acts on (the taint value, the ladder).
  std::string incident;
  Time incident_opened{};
  std::string fault_class;
  std::string fault_reason;

  // The step or validation in flight: which ladder rung (-1 before the first), its name, the
  // attempt number (steps and validations started in this incident, 1-based, so every one has
  // its own object name) and when it started; when the validation passed, the hold-down start.
  int rung = -1;
  int attempts = 0;
  std::string step;
  Time step_started{};
  std::optional<Time> hold_down_since;

  // Flap damping and the recurrence budget: when each confirmed incident (a cordon) began,
  // pruned to the longer of the two windows, and the earliest a new incident may cordon.
  std::vector<Time> incidents;
  Time backoff_until{};

  std::string waiting;        // why a confirmed Suspect node waits; an Event when it changes
  std::string cancel_reason;  // Cancelled: kCancelOptOut or kCancelManualUncordon
  std::vector<Evidence> evidence;
  std::vector<HistoryEntry> history;  // the current (or last) incident's transitions, capped

  bool operator==(const NodeRecord&) const = default;
};

// At most this many history entries are kept (oldest dropped): the annotation stays small.
inline constexpr size_t kMaxHistory = 32;

}  // namespace quotient::remediation
