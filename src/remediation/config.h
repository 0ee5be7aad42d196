// The remediator's policy (fault class -> confirm window and remediation ladder) and its safety
// rails, with the defaults of ../shared/docs/gpu-isolation-and-health.md §2.6. The chart ships
// them as a ConfigMap; config_yaml.h reads it. Every field here is data: no fault class is
// special-cased in code.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "remediation/record.h"

namespace quotient::remediation {

// One rung of a ladder: an opaque step name the controller knows how to run (gpu-reset,
// driver-reload, reboot, external-job, external-webhook, ...) and how long it may take.
struct Rung {
  std::string step;
  Duration timeout{0};
  bool operator==(const Rung&) const = default;
};

struct FaultPolicy {
  // How long the condition must have been True before the node is cordoned: 0 for fatal
  // classes, minutes for rate-based ones, so a blip never drains a node.
  Duration confirm{0};
  // Reasons of this condition type that take no node action (the scheduler already leaves the
  // one GPU out, e.g. GpuMemoryDegraded/RowRemapPending).
  std::vector<std::string> ignore_reasons;
  std::vector<Rung> ladder;
  // A reason whose own ladder replaces `ladder` (GpuRemediationRequired/RebootRequired: reboot
  // only, the driver said so); an empty ladder = drain and validate only.
  std::map<std::string, std::vector<Rung>> reason_ladders;
  bool operator==(const FaultPolicy&) const = default;
};

struct Rails {
  // Concurrent remediations (nodes Cordoned..Validating); 0 = no cap.
  int max_per_domain = 1;
  int max_per_pool = 0;
  int max_global = 0;
  // Circuit breaker: no node moves past Suspect while, within `breaker_window`, more than
  // `breaker_percent` % of a pool's nodes (and at least `breaker_min_nodes`) opened an incident,
  // or at least `breaker_same_reason` nodes of the fleet report the same type/reason.
  int breaker_percent = 10;
  int breaker_min_nodes = 2;
  int breaker_same_reason = 3;
  Duration breaker_window = std::chrono::minutes(10);
  // A person resets the breaker by setting this: incidents opened before it no longer count.
  std::optional<Time> breaker_reset_at;
  // Flap damping: after the k-th incident within `flap_window` closes, the node may not be
  // cordoned again for min(backoff_max, backoff_base * 2^(k-1)).
  Duration backoff_base = std::chrono::minutes(10);
  Duration backoff_max = std::chrono::hours(4);
  Duration flap_window = std::chrono::hours(24);
  // The `recurrence_budget`-th incident within `recurrence_window` escalates at once.
  int recurrence_budget = 3;
  Duration recurrence_window = std::chrono::days(7);
  bool operator==(const Rails&) const = default;
};

// How `quotient remediator` carries out a ladder step (src/remediator/README.md).
enum class StepKind {
  kPod,      // a privileged, hostPID pod pinned to the node runs `command` on the host
  kJob,      // an external hook: a Job made from `job_spec_json`
  kWebhook,  // an external hook: POST to `url`
};
struct StepSpec {
  StepKind kind = StepKind::kPod;
  std::vector<std::string> command;  // kPod
  // kPod: the step ends by rebooting the node, so it cannot report its own success; it has
  // succeeded when the node is back Ready with a new status.nodeInfo.bootID.
  bool succeeds_on_reboot = false;
  std::string job_spec_json;  // kJob: a batch/v1 JobSpec as JSON
  std::string url;            // kWebhook: 2xx = succeeded, anything else = failed
  bool operator==(const StepSpec&) const = default;
};

struct Config {
  std::map<std::string, FaultPolicy> policy;  // by condition type; types not here are ignored
  // What each step name of the ladders does; a ladder naming a step not here is a config error.
  std::map<std::string, StepSpec> steps;
  // The validation pod's command; the controller appends --expected-gpus <the node's capacity>.
  std::vector<std::string> validation_command = {"quotient", "validate"};
  Rails rails;
  Duration drain_timeout = std::chrono::minutes(30);
  bool force_delete_after_timeout = false;             // else a drain timeout escalates
  Duration eviction_retry = std::chrono::seconds(30);  // PDB-blocked evictions are retried
  Duration validation_timeout = std::chrono::minutes(30);
  Duration hold_down = std::chrono::minutes(10);
  bool dry_run = false;
  // For the controller building the view: the labels naming a node's pool and failure domain.
  std::string pool_label = "kai.scheduler/node-pool";  // as the scheduler's default
  std::string failure_domain_label = "topology.kubernetes.io/zone";
  bool operator==(const Config&) const = default;
};

// Every ladder rung names a step of `config.steps`; the error names the first that does not.
Status CheckStepsDefined(const Config& config);

// The defaults of §2.6: fatal classes immediate, rate-based ones 5 minutes; reset before
// reboot; the InfiniBand ladder reloads the driver first.
Config DefaultConfig();

}  // namespace quotient::remediation
