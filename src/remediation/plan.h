// What Decide asks the controller to do: an ordered list of actions, each idempotent, so a plan
// cut short by a failure or a crash is simply decided again on the next reconcile. The
// controller applies them in order and stops at the first failure.
//
// Order within a node: actions that take a node out (Cordon, Escalate) come before the
// SetRecord that says so, and SetRecord(Healthy) comes before the Uncordon that gives it back,
// so a cut plan never leaves a record claiming more than the node shows (a record saying
// Cordoned on a schedulable node would read as a person's uncordon); a Healthy record on a node
// still carrying our taint is uncordoned on the next reconcile.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "remediation/record.h"

namespace quotient::remediation {

// Write the record: annotation quotient.dev/remediation (JSON) and label
// quotient.dev/remediation-state=<StateName>.
struct SetRecord {
  std::string node;
  NodeRecord record;
};
// spec.unschedulable = true and taint quotient.dev/unhealthy=<fault class>:NoSchedule.
struct Cordon {
  std::string node;
  std::string fault_class;
};
// Through the Eviction API (PodDisruptionBudgets honoured; a 429 is reported back as
// PodView::pdb_blocked). `node` is the node being drained, which may differ from the pod's own
// node for the rest of a gang; `incident` lets the scheduler count the pod as drained for a fault.
struct Evict {
  std::string node;
  std::string pod;  // namespace/name
  std::string uid;
  std::string gang;
  std::string incident;
};
// Delete with grace period 0: only after a drain timeout with force_delete_after_timeout.
struct ForceDelete {
  std::string node;
  std::string pod;
  std::string uid;
};
// Run a ladder step; the object is named <node>-<incident>-<step>-<attempt>.
struct StartStep {
  std::string node;
  std::string incident;
  std::string step;
  int attempt = 0;
  Duration timeout{0};
};
// Run the validation pod (`quotient validate`) on the node.
struct StartValidation {
  std::string node;
  std::string incident;
  int attempt = 0;
  Duration timeout{0};
};
// Remove our taints and spec.unschedulable.
struct Uncordon {
  std::string node;
};
// Remove our taints only and leave spec.unschedulable to the person who took over.
struct RemoveTaints {
  std::string node;
};
// Add taint quotient.dev/hardware-repair:NoSchedule (the node stays cordoned and tainted
// unhealthy) and attach the evidence to the incident.
struct Escalate {
  std::string node;
  std::string incident;
  std::string why;
  std::vector<Evidence> evidence;  // captured when the incident was confirmed
  std::vector<HistoryEntry> history;
};
enum class EventType { kNormal, kWarning };
struct Event {
  std::string node;
  EventType type = EventType::kNormal;
  std::string reason;
  std::string message;
};
// A rail held something back, or dry-run left it out: for logs and metrics, nothing to apply.
// `rail` is a short code: opted-out, breaker, domain-cap, pool-cap, global-cap, backoff, pdb,
// dry-run.
struct Skipped {
  std::string node;
  std::string rail;
  std::string why;
};

using Action = std::variant<SetRecord, Cordon, Evict, ForceDelete, StartStep, StartValidation,
                            Uncordon, RemoveTaints, Escalate, Event, Skipped>;

struct Plan {
  std::vector<Action> actions;
  // When something falls due (a confirm window, a timeout, the hold-down, a backoff, the breaker
  // window, an eviction retry); nullopt = nothing until the cluster changes.
  std::optional<Time> requeue_at;
};

// Events and Skipped notes change nothing in the cluster; everything else does.
bool IsMutating(const Action& action);

// One line for logs, dry-run notes and tests: "Cordon node-a GpuXidFatal",
// "Evict ns/pod (node-a)", "StartStep node-a gpu-reset #1", ...
std::string Describe(const Action& action);

}  // namespace quotient::remediation
