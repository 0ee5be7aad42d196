// Test helpers: nodes, faults and pods in a line each, and FakeCluster, which applies a plan to
// the view the way `quotient remediator` applies it to the API server (a PDB-blocked eviction
// leaves the pod; a step or validation started shows up as pending). Tests then script what the
// outside world does (a step fails, a fault clears) and advance a fake clock.
#pragma once

#include <string>
#include <vector>

#include "remediation/decide.h"

namespace quotient::remediation::testing {

// 2025-01-01T00:00:00Z plus `offset`.
Time At(Duration offset = Duration{0});

NodeView MakeNode(const std::string& name, const std::string& pool = "pool-a",
                  const std::string& domain = "rack-1");
FaultCondition Fault(const std::string& type, const std::string& reason, Time since,
                     ConditionStatus status = ConditionStatus::kTrue);
PodView MakePod(const std::string& key);
PodView DaemonSetPod(const std::string& key);
PodView GangPod(const std::string& key, const std::string& gang);

// `count` healthy nodes named <prefix>-00, <prefix>-01, ... so a pool is large enough that a
// fault or two stays under the breaker's percentage.
std::vector<NodeView> HealthyNodes(const std::string& prefix, int count,
                                   const std::string& pool = "pool-a");

class FakeCluster {
 public:
  FleetView fleet;
  Config config = DefaultConfig();
  std::vector<std::string> evicted;  // every eviction that removed a pod, in order

  NodeView& Node(const std::string& name);
  void AddNode(NodeView node) { fleet.nodes.push_back(std::move(node)); }
  // Records every pod of `gang` (as placed on the nodes now) in fleet.gangs.
  void IndexGang(const std::string& gang);

  // Decide, then apply the plan; returns the plan.
  Plan Reconcile(Time now);
  void Apply(const Plan& plan);

  // The step or validation in flight on `node` finishes with `status`.
  void FinishStep(const std::string& node, StepStatus status, const std::string& message = "");
  // Sets the type's condition to False (the agent saw it clear) at `when`.
  void ClearFault(const std::string& node, const std::string& type, Time when);

 private:
  void RemovePod(const std::string& key);
};

// Reconciles once a minute from `now`, letting every step and the validation of `node` succeed
// (its faults clear when the first step finishes), until `node` is Healthy again; returns the
// plan that made it so and leaves `now` at that reconcile.
Plan RunToHealthy(FakeCluster& cluster, const std::string& node, Time& now);

// The plan as one line per action (Describe).
std::vector<std::string> Lines(const Plan& plan);
// Only the actions of one kind.
template <typename T>
std::vector<T> Only(const Plan& plan) {
  std::vector<T> out;
  for (const Action& a : plan.actions) {
    if (const T* t = std::get_if<T>(&a)) out.push_back(*t);
  }
  return out;
}

}  // namespace quotient::remediation::testing
