// What the remediator keeps of each Node and Pod, decoded once when the informer receives it
// (transform on ingest): only what the fleet view (fleet_view.h) and the executor need, so a
// cache of every pod in a large cluster stays small.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "kubeclient/raw_object.h"
#include "remediation/view.h"

namespace quotient::remediator {

struct ObservedNode {
  std::string name;
  std::string uid;
  std::map<std::string, std::string> labels;
  // Every condition but the kubelet's own (Ready and the pressure conditions, whose polarity is
  // not ours): the agent's fault conditions and any other problem detector's.
  std::vector<remediation::FaultCondition> conditions;
  std::string record_json;  // annotation quotient.dev/remediation, "" when absent
  bool unschedulable = false;
  bool unhealthy_taint = false;  // quotient.dev/unhealthy
  bool repair_taint = false;     // quotient.dev/hardware-repair
  bool ready = false;            // the kubelet's Ready condition is True
  std::string boot_id;           // status.nodeInfo.bootID: a reboot step is done when it changes
  int64_t gpus = 0;              // status.capacity nvidia.com/gpu, whole GPUs
};

// Which step object a pod, Job or ConfigMap is: written on it by the executor
// (step_objects.h), read back here.
struct StepRef {
  std::string node;
  std::string incident;
  std::string step;  // a ladder step name, or remediation::kValidationStep
  int attempt = 0;
  bool operator==(const StepRef&) const = default;
};

enum class StepPhase { kRunning, kSucceeded, kFailed };

struct ObservedStep {
  StepRef ref;
  StepPhase phase = StepPhase::kRunning;
  std::string message;  // why it failed (container exit code and reason, Job condition message)
  std::string boot_id_before;  // a pod step: the node's bootID when it was created
};

struct ObservedPod {
  std::string key;  // namespace/name
  std::string uid;
  std::string node;  // spec.nodeName, "" while pending
  bool daemonset = false;
  bool mirror = false;  // annotation kubernetes.io/config.mirror
  bool terminating = false;
  std::string gang;                  // namespace/<pod-group-name annotation>, "" when none
  std::optional<ObservedStep> step;  // set when the pod is one of our step or validation pods
};

Result<ObservedNode> DecodeNode(const kubeclient::RawObject& raw);
Result<ObservedPod> DecodePod(const kubeclient::RawObject& raw);
// A step Job or a webhook step's result ConfigMap; an error when it carries no step reference.
Result<ObservedStep> DecodeStepJob(const kubeclient::RawObject& raw);
Result<ObservedStep> DecodeStepResult(const kubeclient::RawObject& raw);

}  // namespace quotient::remediator
