#include "remediation/decide.h"

#include <algorithm>

#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

// Dry-run: the plan keeps its Events, marked, and every mutating action becomes a note of what
// would have been done. Records are not written either, so each reconcile shows the next step
// from the state the cluster really has.
Plan DryRun(Plan plan, Time now) {
  Plan dry;
  // "Come back now" means "the state moved on"; in dry-run it did not, so only a real due time
  // (a confirm window ending) is kept and the controller's resync does the rest.
  if (plan.requeue_at && *plan.requeue_at > now) dry.requeue_at = plan.requeue_at;
  for (Action& action : plan.actions) {
    if (auto* event = std::get_if<Event>(&action)) {
      event->reason = "DryRun" + event->reason;
      event->message = "[dry-run] " + event->message;
      dry.actions.push_back(std::move(action));
    } else if (std::holds_alternative<Skipped>(action)) {
      dry.actions.push_back(std::move(action));
    } else {
      std::string node = std::visit([](const auto& a) { return a.node; }, action);
      dry.actions.push_back(Skipped{std::move(node), "dry-run", "would " + Describe(action)});
    }
  }
  return dry;
}

}  // namespace

Plan Decide(const FleetView& fleet, const Config& config, Time now) {
  std::vector<const NodeView*> nodes;
  nodes.reserve(fleet.nodes.size());
  for (const NodeView& n : fleet.nodes) nodes.push_back(&n);
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeView* a, const NodeView* b) { return a->name < b->name; });

  Context ctx{fleet, config, now, {}, std::nullopt};
  std::vector<NodeOutcome> outcomes;
  outcomes.reserve(nodes.size());
  for (const NodeView* node : nodes) outcomes.push_back(Advance(*node, ctx));
  AdmitCandidates(nodes, outcomes, ctx);

  Plan plan;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeOutcome& out = outcomes[i];
    for (Action& a : out.before) plan.actions.push_back(std::move(a));
    if (out.record != nodes[i]->record) {
      plan.actions.push_back(SetRecord{nodes[i]->name, out.record});
    }
    for (Action& a : out.after) plan.actions.push_back(std::move(a));
  }
  plan.requeue_at = ctx.requeue_at;
  return config.dry_run ? DryRun(std::move(plan), now) : plan;
}

}  // namespace quotient::remediation
