// From the informers' caches to the view remediation::Decide reads (remediation/view.h): each
// node's pool and failure domain from the configured labels, its fault conditions, our record
// read back from its annotation, its pods, the step in flight; and every gang's pods across the
// cluster. Pure: the controller hands in what its caches hold, tests hand in literals.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "remediation/config.h"
#include "remediation/view.h"
#include "remediator/observed.h"

namespace quotient::remediator {

struct FleetInputs {
  std::vector<const ObservedNode*> nodes;
  std::vector<const ObservedPod*> pods;  // every pod not finished, step pods included
  std::vector<ObservedStep> steps;       // step pods', Jobs' and webhook results' steps
  std::set<std::string> pdb_blocked;     // uids of pods whose last eviction got 429
};

struct BuiltFleet {
  remediation::FleetView view;
  // Nodes left out, with why (a record annotation that cannot be read: acting on a guess could
  // uncordon a broken node).
  std::vector<std::string> problems;
};

BuiltFleet BuildFleetView(const FleetInputs& inputs, const remediation::Config& config);

// What the step object in flight says, for the step the record names. A step that ends in a
// reboot has succeeded when the node is Ready with a bootID other than the one it started on;
// it failed if its pod failed before the node rebooted.
remediation::StepObservation ObserveStep(const ObservedStep& step, const ObservedNode& node,
                                         const remediation::Config& config);

}  // namespace quotient::remediator
