// Remediating and Validating: the ladder of steps for the incident's fault, one rung after the
// other, then the validation pod and the hold-down before the node goes back.
#include <algorithm>

#include "core/time_text.h"
#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

// The observation of the step in flight, if the controller found it: a stale one (an earlier
// rung or attempt) is not ours.
const StepObservation* InFlight(const NodeView& node, const NodeRecord& record) {
  if (!node.step || node.step->name != record.step || node.step->attempt != record.attempts) {
    return nullptr;
  }
  return &*node.step;
}

std::string Outcome(const StepObservation* obs, std::string_view fallback) {
  if (obs == nullptr || obs->message.empty()) return std::string(fallback);
  return std::string(fallback) + ": " + obs->message;
}

void StartValidating(const NodeView& node, std::string note, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  r.attempts += 1;
  r.step = std::string(kValidationStep);
  r.step_started = ctx.now;
  r.hold_down_since.reset();
  Enter(r, State::kValidating, ctx.now, std::move(note));
  out.before.push_back(
      StartValidation{node.name, r.incident, r.attempts, ctx.config.validation_timeout});
  out.before.push_back(
      Event{node.name, EventType::kNormal, "RemediationValidating",
            "running the validation pod (attempt " + std::to_string(r.attempts) + ")"});
  ctx.Due(ctx.now + ctx.config.validation_timeout);
}

// After the k-th incident within the flap window, min(max, base * 2^(k-1)) before the next
// cordon: a node that keeps coming back broken is given time, and its fault time to show.
Duration Backoff(const NodeRecord& record, const Rails& rails, Time now) {
  const auto k = std::count_if(record.incidents.begin(), record.incidents.end(),
                               [&](Time t) { return t + rails.flap_window > now; });
  if (k <= 0) return Duration{0};
  Duration backoff = rails.backoff_base;
  for (auto i = 1; i < k && backoff < rails.backoff_max; ++i) backoff *= 2;
  return std::min(backoff, rails.backoff_max);
}

void Release(const NodeView& node, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  const Duration backoff = Backoff(r, ctx.config.rails, ctx.now);
  r.backoff_until = ctx.now + backoff;
  const std::string incident = r.incident;
  CloseIncident(r, ctx.now,
                "validated; back in service (no new cordon before " +
                    core::FormatRfc3339(r.backoff_until) + ")");
  // After SetRecord (plan.h): a cut plan leaves a Healthy record on a tainted node, which the
  // next reconcile uncordons.
  out.after.push_back(Uncordon{node.name});
  out.after.push_back(Event{node.name, EventType::kNormal, "RemediationRecovered",
                            "incident " + incident + " closed: validated and held down for " +
                                FormatDuration(ctx.config.hold_down) + "; uncordoned"});
}

// The hold-down: no fault may appear after the validation passed, and one that was still True
// from before (the agent re-observes after a reset) must be gone when it ends.
void HoldDown(const NodeView& node, Context& ctx, NodeOutcome& out) {
  const Time start = *out.record.hold_down_since;
  const std::vector<ActiveFault> faults = ActiveFaults(node, ctx.config);
  for (const ActiveFault& f : faults) {
    if (f.condition->last_transition >= start) {
      EscalateNode(node, FaultLabel(*f.condition) + " True during the hold-down", ctx, out);
      return;
    }
  }
  const Time end = start + ctx.config.hold_down;
  if (ctx.now < end) {
    ctx.Due(end);
    return;
  }
  if (!faults.empty()) {
    EscalateNode(node, FaultLabel(*faults.front().condition) + " still True after the hold-down",
                 ctx, out);
    return;
  }
  Release(node, ctx, out);
}

}  // namespace

void StartNextRung(const NodeView& node, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  const std::vector<Rung>& ladder = LadderFor(ctx.config, r);
  if (ladder.empty()) {  // the policy asks for a drain and a validation only
    StartValidating(node, "drained; no remediation step for " + r.fault_class, ctx, out);
    return;
  }
  const auto next = static_cast<size_t>(r.rung + 1);
  if (next >= ladder.size()) {
    EscalateNode(node, "remediation ladder exhausted", ctx, out);
    return;
  }
  const Rung& rung = ladder[next];
  r.rung = static_cast<int>(next);
  r.attempts += 1;
  r.step = rung.step;
  r.step_started = ctx.now;
  const std::string note = "step " + rung.step + " (attempt " + std::to_string(r.attempts) +
                           ", timeout " + FormatDuration(rung.timeout) + ")";
  if (r.state == State::kRemediating) {
    Note(r, ctx.now, note);
  } else {
    Enter(r, State::kRemediating, ctx.now, note);
  }
  out.before.push_back(StartStep{node.name, r.incident, rung.step, r.attempts, rung.timeout});
  out.before.push_back(Event{node.name, EventType::kNormal, "RemediationStep", "starting " + note});
  ctx.Due(ctx.now + rung.timeout);
}

void Remediate(const NodeView& node, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  const std::vector<Rung>& ladder = LadderFor(ctx.config, r);
  if (r.rung < 0 || static_cast<size_t>(r.rung) >= ladder.size()) {
    EscalateNode(
        node, "the policy no longer has rung " + std::to_string(r.rung) + " for " + r.fault_class,
        ctx, out);
    return;
  }
  const Rung& rung = ladder[static_cast<size_t>(r.rung)];
  const StepObservation* obs = InFlight(node, r);
  const Time deadline = r.step_started + rung.timeout;
  if (obs != nullptr && obs->status == StepStatus::kSucceeded) {
    StartValidating(node, rung.step + " succeeded; validating", ctx, out);
    return;
  }
  std::string failure;
  if (obs != nullptr && obs->status == StepStatus::kFailed) failure = Outcome(obs, "failed");
  if (obs != nullptr && obs->status == StepStatus::kTimedOut) failure = Outcome(obs, "timed out");
  if (failure.empty() && ctx.now >= deadline) {
    failure = "timed out after " + FormatDuration(rung.timeout);
  }
  if (!failure.empty()) {
    Note(r, ctx.now, rung.step + " " + failure);
    out.before.push_back(
        Event{node.name, EventType::kWarning, "RemediationStepFailed", rung.step + " " + failure});
    StartNextRung(node, ctx, out);
    return;
  }
  // Not seen yet: ask again (the step's name makes it idempotent) in case the start was lost.
  if (obs == nullptr) {
    out.before.push_back(StartStep{node.name, r.incident, rung.step, r.attempts, rung.timeout});
  }
  ctx.Due(deadline);
}

void Validate(const NodeView& node, Context& ctx, NodeOutcome& out) {
  NodeRecord& r = out.record;
  if (r.hold_down_since) {
    HoldDown(node, ctx, out);
    return;
  }
  const StepObservation* obs = InFlight(node, r);
  const Time deadline = r.step_started + ctx.config.validation_timeout;
  if (obs != nullptr && obs->status == StepStatus::kSucceeded) {
    r.hold_down_since = ctx.now;
    Note(r, ctx.now, "validation passed; hold-down " + FormatDuration(ctx.config.hold_down));
    ctx.Due(ctx.now + ctx.config.hold_down);
    return;
  }
  if (obs != nullptr && obs->status == StepStatus::kFailed) {
    EscalateNode(node, Outcome(obs, "validation failed"), ctx, out);
    return;
  }
  if ((obs != nullptr && obs->status == StepStatus::kTimedOut) || ctx.now >= deadline) {
    EscalateNode(node, Outcome(obs, "validation timed out"), ctx, out);
    return;
  }
  if (obs == nullptr) {
    out.before.push_back(
        StartValidation{node.name, r.incident, r.attempts, ctx.config.validation_timeout});
  }
  ctx.Due(deadline);
}

}  // namespace quotient::remediation
