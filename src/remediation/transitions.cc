// The record changes Decide makes, each with the actions and Events that go with it.
#include <algorithm>
#include <utility>

#include "core/time_text.h"
#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

void Push(NodeRecord& record, HistoryEntry entry) {
  record.history.push_back(std::move(entry));
  if (record.history.size() > kMaxHistory) {
    record.history.erase(record.history.begin(),
                         record.history.end() - static_cast<std::ptrdiff_t>(kMaxHistory));
  }
}

Event MakeEvent(const NodeView& node, EventType type, std::string reason, std::string message) {
  return Event{node.name, type, std::move(reason), std::move(message)};
}

// Incidents older than both windows matter to neither rail.
void PruneIncidents(NodeRecord& record, const Config& config, Time now) {
  const Duration keep = std::max(config.rails.flap_window, config.rails.recurrence_window);
  std::erase_if(record.incidents, [&](Time t) { return t + keep <= now; });
}

// The parts of a cordon and of a recurrence escalation that are the same: the fault the incident
// acts on, the evidence (before any step can reset a counter), the incident count.
void Confirm(const NodeView& node, const ActiveFault& fault, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  r.fault_class = fault.condition->type;
  r.fault_reason = fault.condition->reason;
  r.evidence = CaptureEvidence(node);
  r.waiting.clear();
  PruneIncidents(r, ctx.config, ctx.now);
  r.incidents.push_back(ctx.now);
  out.before.push_back(Cordon{node.name, r.fault_class});
}

}  // namespace

void Enter(NodeRecord& record, State state, Time now, std::string note) {
  record.state = state;
  record.since = now;
  Push(record, {now, state, std::move(note)});
}

void Note(NodeRecord& record, Time now, std::string note) {
  Push(record, {now, record.state, std::move(note)});
}

void OpenIncident(const NodeView& node, const ActiveFault& fault, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  r.incident = IncidentId(ctx.now);
  r.incident_opened = ctx.now;
  r.fault_class = fault.condition->type;
  r.fault_reason = fault.condition->reason;
  r.rung = -1;
  r.attempts = 0;
  r.step.clear();
  r.step_started = Time{};
  r.hold_down_since.reset();
  r.waiting.clear();
  r.cancel_reason.clear();
  r.evidence.clear();
  r.history.clear();  // the record keeps the history of the current or last incident only
  const std::string label = FaultLabel(*fault.condition);
  Enter(r, State::kSuspect, ctx.now, label + " True");
  out.before.push_back(MakeEvent(node, EventType::kWarning, "RemediationSuspect",
                                 label + " True (" + fault.condition->message +
                                     "); confirming for " + FormatDuration(fault.policy->confirm)));
}

void CloseIncident(NodeRecord& record, Time now, std::string note) {
  record.incident.clear();
  record.fault_class.clear();
  record.fault_reason.clear();
  record.rung = -1;
  record.attempts = 0;
  record.step.clear();
  record.step_started = Time{};
  record.hold_down_since.reset();
  record.waiting.clear();
  record.cancel_reason.clear();
  Enter(record, State::kHealthy, now, std::move(note));
}

void EscalateNode(const NodeView& node, std::string why, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  Enter(r, State::kEscalated, ctx.now, why);
  out.before.push_back(Escalate{node.name, r.incident, why, r.evidence, r.history});
  out.before.push_back(MakeEvent(node, EventType::kWarning, "RemediationEscalated",
                                 "needs hardware repair: " + why));
}

void CancelNode(const NodeView& node, std::string_view reason, Context& ctx, NodeOutcome& out) {
  if (node.has_unhealthy_taint || node.has_repair_taint) {
    out.before.push_back(RemoveTaints{node.name});
  }
  const std::string why =
      reason == kCancelOptOut
          ? "opted out (label quotient.dev/remediation=disabled)"
          : "uncordoned by a person while in " + std::string(StateName(out.record.state));
  out.record.cancel_reason = std::string(reason);
  out.record.waiting.clear();
  Enter(out.record, State::kCancelled, ctx.now, why);
  out.before.push_back(
      MakeEvent(node, EventType::kNormal, "RemediationCancelled",
                "automation stopped for incident " + out.record.incident + ": " + why));
}

void CordonNode(const NodeView& node, const ActiveFault& fault, Context& ctx, NodeOutcome& out) {
  Confirm(node, fault, ctx, out);
  const std::string label = FaultLabel(*fault.condition);
  Enter(out.record, State::kCordoned, ctx.now, label + " confirmed; cordoned");
  out.before.push_back(
      MakeEvent(node, EventType::kWarning, "RemediationCordoned",
                label + " confirmed: cordoned for incident " + out.record.incident));
  ctx.Due(ctx.now);
}

void EscalateRecurrence(const NodeView& node, const ActiveFault& fault, int incidents, Context& ctx,
                        NodeOutcome& out) {
  Confirm(node, fault, ctx, out);
  EscalateNode(node,
               FaultLabel(*fault.condition) + ": incident " + std::to_string(incidents) +
                   " within " + FormatDuration(ctx.config.rails.recurrence_window) +
                   " (recurrence budget " + std::to_string(ctx.config.rails.recurrence_budget) +
                   ")",
               ctx, out);
}

void Wait(const NodeView& node, std::string rail, std::string why, NodeOutcome& out) {
  if (out.record.waiting != why) {
    out.record.waiting = why;
    out.before.push_back(
        MakeEvent(node, EventType::kNormal, "RemediationWaiting", "not cordoned yet: " + why));
  }
  out.before.push_back(Skipped{node.name, std::move(rail), std::move(why)});
}

}  // namespace quotient::remediation
