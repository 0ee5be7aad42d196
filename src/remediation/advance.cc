// Phase 1 of Decide: each node moves on as far as it can without a rail.
#include "core/time_text.h"
#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

// Marks `out` as a candidate for phase 2 when one of the faults has been True for its class's
// confirm window; otherwise asks to come back when the first one will have been.
void CheckConfirmed(const std::vector<ActiveFault>& faults, Context& ctx, NodeOutcome& out) {
  for (const ActiveFault& f : faults) {
    const Time confirmed_at = ConfirmStart(f, out.record, ctx.now) + f.policy->confirm;
    if (confirmed_at <= ctx.now) {
      out.confirmed = f;
      return;
    }
    ctx.Due(confirmed_at);
  }
}

void AdvanceHealthy(const NodeView& node, Context& ctx, NodeOutcome& out) {
  // A Healthy record with our taint: a plan cut between SetRecord(Healthy) and its Uncordon.
  // First in the plan, so a new incident below starts from an uncordoned node.
  if (node.has_unhealthy_taint) out.before.push_back(Uncordon{node.name});
  const std::vector<ActiveFault> faults = ActiveFaults(node, ctx.config);
  if (faults.empty()) return;
  if (node.opted_out) {
    out.before.push_back(
        Skipped{node.name, "opted-out",
                FaultLabel(*faults.front().condition) + " is True but the node is opted out"});
    return;
  }
  OpenIncident(node, faults.front(), ctx, out);
  CheckConfirmed(faults, ctx, out);
}

void AdvanceSuspect(const NodeView& node, Context& ctx, NodeOutcome& out) {
  if (node.opted_out) {
    CancelNode(node, kCancelOptOut, ctx, out);
    return;
  }
  const std::vector<ActiveFault> faults = ActiveFaults(node, ctx.config);
  if (faults.empty()) {
    CloseIncident(out.record, ctx.now, "fault cleared before it was confirmed");
    out.before.push_back(Event{
        node.name, EventType::kNormal, "RemediationFaultCleared",
        "fault cleared within its confirm window; incident " + node.record.incident + " closed"});
    // Our taint on a Suspect node: a plan cut after its Cordon; the node goes back.
    if (node.has_unhealthy_taint) out.after.push_back(Uncordon{node.name});
    return;
  }
  CheckConfirmed(faults, ctx, out);
}

// A cancelled node stays alone until it is opted in again (an opt-out) or, after a person's
// uncordon, until its fault is gone: cordoning it again would undo what the person just did.
void AdvanceCancelled(const NodeView& node, Context& ctx, NodeOutcome& out) {
  if (node.opted_out) return;
  const bool fault = !ActiveFaults(node, ctx.config).empty();
  if (out.record.cancel_reason != kCancelOptOut && fault) return;
  CloseIncident(out.record, ctx.now, "automation resumed");
  out.before.push_back(Event{node.name, EventType::kNormal, "RemediationResumed",
                             "automation resumed; incident " + node.record.incident + " closed"});
  ctx.Due(ctx.now);
}

void StartDraining(const NodeView& node, Context& ctx, NodeOutcome& out) {
  Enter(out.record, State::kDraining, ctx.now, "draining");
  out.before.push_back(Event{node.name, EventType::kNormal, "RemediationDraining",
                             "evicting pods for incident " + out.record.incident + " (timeout " +
                                 FormatDuration(ctx.config.drain_timeout) + ")"});
  ctx.Due(ctx.now);
}

}  // namespace

NodeOutcome Advance(const NodeView& node, Context& ctx) {
  NodeOutcome out{node.record, {}, {}, std::nullopt};
  switch (node.record.state) {
    case State::kHealthy:
      AdvanceHealthy(node, ctx, out);
      return out;
    case State::kSuspect:
      AdvanceSuspect(node, ctx, out);
      return out;
    case State::kCancelled:
      AdvanceCancelled(node, ctx, out);
      return out;
    default:
      break;
  }
  // Every other state has the node cordoned by us: a person's word ends automation there.
  if (node.opted_out) {
    CancelNode(node, kCancelOptOut, ctx, out);
    return out;
  }
  if (!node.unschedulable) {
    CancelNode(node, kCancelManualUncordon, ctx, out);
    return out;
  }
  switch (node.record.state) {
    case State::kCordoned:
      StartDraining(node, ctx, out);
      break;
    case State::kDraining:
      Drain(node, ctx, out);
      break;
    case State::kRemediating:
      Remediate(node, ctx, out);
      break;
    case State::kValidating:
      Validate(node, ctx, out);
      break;
    default:  // Escalated: a person repairs the node and uncordons it
      break;
  }
  return out;
}

}  // namespace quotient::remediation
