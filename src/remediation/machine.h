// Internal to Decide: the shared context of one reconcile, the per-node outcome, and the
// functions of its two phases. Phase 1 (Advance) moves every node on by itself: what needs no
// rail. Phase 2 (AdmitCandidates) decides which confirmed Suspect nodes may be cordoned now,
// against the rails computed on the states phase 1 left, so a slot freed this round is reused.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "remediation/config.h"
#include "remediation/plan.h"
#include "remediation/view.h"

namespace quotient::remediation {

// A True condition the policy acts on.
struct ActiveFault {
  const FaultCondition* condition = nullptr;
  const FaultPolicy* policy = nullptr;
};

struct Context {
  const FleetView& fleet;
  const Config& config;
  Time now;
  std::set<std::string> evicted;  // pod keys evicted in this plan: a gang goes once
  std::optional<Time> requeue_at;

  // Asks Decide to come back at `at` (now at the earliest).
  void Due(Time at) {
    const Time t = at < now ? now : at;
    if (!requeue_at || t < *requeue_at) requeue_at = t;
  }
};

// What Decide does to one node. The plan gets `before`, then SetRecord when `record` differs
// from the node's, then `after` (plan.h explains the order).
struct NodeOutcome {
  NodeRecord record;
  std::vector<Action> before;
  std::vector<Action> after;
  std::optional<ActiveFault> confirmed;  // a confirmed Suspect: phase 2 may cordon it
};

// faults.cc
// True conditions covered by the policy and not of an ignored reason, by (confirm, type).
std::vector<ActiveFault> ActiveFaults(const NodeView& node, const Config& config);
// When the fault started counting: the condition's lastTransitionTime, unless unset or ahead of
// `now` (another clock), then when the incident opened.
Time ConfirmStart(const ActiveFault& fault, const NodeRecord& record, Time now);
const std::vector<Rung>& LadderFor(const Config& config, const NodeRecord& record);
// Every True condition, whatever its type: the evidence of an escalation.
std::vector<Evidence> CaptureEvidence(const NodeView& node);
std::string FaultLabel(const FaultCondition& condition);  // "GpuXidFatal/Xid79"
std::string FormatDuration(Duration d);                   // "10m", "1h30m", "7d"
std::string IncidentId(Time opened);                      // "20250102-030405"

// transitions.cc: record changes shared by both phases.
void Enter(NodeRecord& record, State state, Time now, std::string note);
void Note(NodeRecord& record, Time now, std::string note);  // history only, state unchanged
void OpenIncident(const NodeView& node, const ActiveFault& fault, Context& ctx, NodeOutcome& out);
void CloseIncident(NodeRecord& record, Time now, std::string note);
void EscalateNode(const NodeView& node, std::string why, Context& ctx, NodeOutcome& out);
void CancelNode(const NodeView& node, std::string_view reason, Context& ctx, NodeOutcome& out);
// A confirmed Suspect that the rails let through: cordon (or, at the recurrence budget, cordon
// and escalate), capturing the evidence before any step can reset it.
void CordonNode(const NodeView& node, const ActiveFault& fault, Context& ctx, NodeOutcome& out);
void EscalateRecurrence(const NodeView& node, const ActiveFault& fault, int incidents, Context& ctx,
                        NodeOutcome& out);
// A confirmed Suspect held back by a rail: a Skipped note every time, an Event when `why` changes.
void Wait(const NodeView& node, std::string rail, std::string why, NodeOutcome& out);

// advance.cc, drain.cc, ladder.cc: phase 1.
NodeOutcome Advance(const NodeView& node, Context& ctx);
void Drain(const NodeView& node, Context& ctx, NodeOutcome& out);
void StartNextRung(const NodeView& node, Context& ctx, NodeOutcome& out);
void Remediate(const NodeView& node, Context& ctx, NodeOutcome& out);
void Validate(const NodeView& node, Context& ctx, NodeOutcome& out);

// rails.cc: phase 2. `nodes` and `outcomes` are parallel, in name order.
void AdmitCandidates(const std::vector<const NodeView*>& nodes, std::vector<NodeOutcome>& outcomes,
                     Context& ctx);

}  // namespace quotient::remediation
