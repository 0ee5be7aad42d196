// The objects a remediation step runs as, in the remediator's namespace: a pod pinned to the
// node for `pod` steps and the validation, a Job for `job` steps, and for `webhook` steps a
// ConfigMap holding the answer the hook gave. Each is named <node>-<incident>-<step>-<attempt>
// (asking again for the same step is idempotent: AlreadyExists) and carries its StepRef in
// annotations, so the controller finds it again after a restart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "remediation/record.h"
#include "remediator/observed.h"

namespace quotient::remediator {

// Label on every step object (its value: the step name), for the informers' selector.
inline constexpr std::string_view kStepLabel = "quotient.dev/remediation-step";
inline constexpr std::string_view kStepNodeAnnotation = "quotient.dev/remediation-node";
inline constexpr std::string_view kStepIncidentAnnotation = "quotient.dev/remediation-incident";
inline constexpr std::string_view kStepAttemptAnnotation = "quotient.dev/remediation-attempt";
inline constexpr std::string_view kBootIdAnnotation = "quotient.dev/boot-id-before";
// A webhook step's ConfigMap: data.status succeeded|failed, data.message.
inline constexpr std::string_view kStepResultStatusKey = "status";
inline constexpr std::string_view kStepResultMessageKey = "message";
// Label of the incident records (ConfigMaps), value: the node name when it fits a label.
inline constexpr std::string_view kIncidentLabel = "quotient.dev/remediation-incident";

// <node>-<incident>-<step>-<attempt>; a name longer than 253 characters keeps its end and a
// hash of the whole, so it stays unique and valid.
std::string StepObjectName(const StepRef& ref);
// incident-<node>-<incident>, the same way.
std::string IncidentRecordName(const std::string& node, const std::string& incident);

struct PodStepOptions {
  std::string namespace_name;
  std::string image;
  std::string service_account;  // "" = the namespace's default
  std::string runtime_class;    // "" = none (e.g. "nvidia" where it is not the default)
  std::vector<std::string> image_pull_secrets;  // for a private registry (the chart's)
};

// A pod on `ref.node` running `command`: privileged and root, in the host's PID namespace (steps
// act on the host through nsenter), tolerating every taint (the node is cordoned and tainted by
// us), never restarted. `boot_id` is recorded for steps that end in a reboot.
std::string StepPodJson(const StepRef& ref, const std::vector<std::string>& command,
                        const std::string& boot_id, const PodStepOptions& options);
// The validation pod: not privileged; it sees every GPU through NVIDIA_VISIBLE_DEVICES=all.
std::string ValidationPodJson(const StepRef& ref, const std::vector<std::string>& command,
                              const PodStepOptions& options);
// A Job from the configured JobSpec (JSON), named and annotated as a step, with NODE_NAME,
// INCIDENT and STEP in every container's environment; an error names the field at fault.
Result<std::string> StepJobJson(const StepRef& ref, const std::string& job_spec_json,
                                const std::string& namespace_name);
// What a webhook step POSTs: the node, incident, step, attempt and the evidence.
std::string WebhookPayload(const StepRef& ref, const std::vector<remediation::Evidence>& evidence);
std::string StepResultConfigMapJson(const StepRef& ref, const std::string& namespace_name,
                                    bool succeeded, const std::string& message);

// The incident's record: the NodeRecord's JSON, the evidence and history, and how it ended.
std::string IncidentRecordJson(const std::string& node, const std::string& namespace_name,
                               const remediation::NodeRecord& record, const std::string& outcome);

// Reads the StepRef back from an object's labels and annotations (JSON `metadata`).
Result<StepRef> ReadStepRef(const std::map<std::string, std::string>& labels,
                            const std::map<std::string, std::string>& annotations);

}  // namespace quotient::remediator
