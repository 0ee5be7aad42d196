// What the remediator sees of the fleet on one reconcile: per node its labels' meaning (pool,
// failure domain, opt-out), the agent's fault conditions, whether it is cordoned and carries our
// taints, our record, its pods, and the step or validation pod in flight. The controller builds
// it from its informers; Decide reads nothing else.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "remediation/record.h"

namespace quotient::remediation {

enum class ConditionStatus { kTrue, kFalse, kUnknown };

// One of the agent's conditions (problem polarity: True = fault).
struct FaultCondition {
  std::string type;  // GpuXidFatal, GpuLost, ... (core/node_health.h)
  ConditionStatus status = ConditionStatus::kFalse;
  std::string reason;
  std::string message;
  Time last_transition{};
};

struct PodView {
  std::string key;  // namespace/name
  std::string uid;
  bool daemonset = false;    // owned by a DaemonSet: it would come straight back, never evicted
  bool mirror = false;       // static (mirror) pod: the kubelet owns it, never evicted
  bool terminating = false;  // deletionTimestamp set: already going, not evicted again
  std::string gang;          // PodGroup key (namespace/name), "" = not part of a gang
  bool pdb_blocked = false;  // the last eviction got 429 from a PodDisruptionBudget
};

// A pod of a gang, wherever it runs: evicting one member evicts all of them.
struct GangMember {
  std::string key;
  std::string uid;
  std::string node;
  bool terminating = false;
};

// kValidationStep names the validation pod; ladder steps are any other names (config.h).
enum class StepStatus { kPending, kSucceeded, kFailed, kTimedOut };
struct StepObservation {
  std::string name;  // the step's name, or kValidationStep
  int attempt = 0;   // as in StartStep / StartValidation
  StepStatus status = StepStatus::kPending;
  std::string message;  // why it failed, for the history
};
inline constexpr std::string_view kValidationStep = "validate";

struct NodeView {
  std::string name;
  std::string pool;    // node-pool label value ("" = the nodes without one form one pool)
  std::string domain;  // failure-domain label value ("" = one shared domain, the safe side)
  std::vector<FaultCondition> conditions;
  bool opted_out = false;            // label quotient.dev/remediation=disabled
  bool unschedulable = false;        // spec.unschedulable
  bool has_unhealthy_taint = false;  // quotient.dev/unhealthy
  bool has_repair_taint = false;     // quotient.dev/hardware-repair
  NodeRecord record;                 // read back from the annotation; default = Healthy
  std::vector<PodView> pods;
  std::optional<StepObservation> step;  // the step or validation object found, if any
};

struct FleetView {
  std::vector<NodeView> nodes;  // any order; Decide works in name order
  // Every pod of each gang that has a pod on a node in `nodes`, across the whole cluster.
  std::map<std::string, std::vector<GangMember>> gangs;
};

}  // namespace quotient::remediation
