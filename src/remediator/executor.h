// Carries out a plan of remediation::Decide against the API server, action by action, in order.
// Every action is idempotent (a step object that exists already, an eviction of a pod that is
// gone, a taint that is there), so a plan cut short is simply decided and applied again. An
// action that fails skips the rest of its node's actions in this plan, and the others go on: one
// node the API server refuses to touch must not hold up the fleet.
//
//   SetRecord      merge patch of the node's label and annotation; the incident record
//                  (a ConfigMap) is written with it while an incident is open
//   Cordon         spec.unschedulable and taint quotient.dev/unhealthy=<class>:NoSchedule
//                  (read-modify-write: taints are a list without a merge key)
//   Evict          the pod is annotated with the node and incident it is drained for, its
//                  PodGroup too, then the Eviction API; 429 (a PodDisruptionBudget) is
//                  remembered for the next view, 404 is done
//   ForceDelete    delete with grace period 0 and the pod's uid as precondition
//   StartStep      the step's pod, Job, or webhook call (its answer kept in a ConfigMap)
//   StartValidation the validation pod
//   Uncordon / RemoveTaints / Escalate: the node's taints and spec.unschedulable
//   Event          on the Node; Skipped: counted and logged
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>

#include "kubeclient/client.h"
#include "kubeclient/event_recorder.h"
#include "remediation/config.h"
#include "remediation/plan.h"
#include "remediator/observed.h"
#include "remediator/step_objects.h"

namespace quotient::remediator {

// POSTs `body` (JSON) to `url`; the HTTP status, or an error when there was no answer.
using WebhookCaller = std::function<Result<int>(const std::string& url, const std::string& body,
                                                std::chrono::seconds timeout)>;
// The default caller: libcurl, TLS verified against the system trust store.
WebhookCaller CurlWebhookCaller();

struct ExecutorOptions {
  PodStepOptions pods;  // namespace, image, service account, runtime class
  std::string field_manager = "quotient-remediator";
  std::chrono::seconds webhook_timeout{30};  // at most; a rung's own timeout may be shorter
};

struct ExecutionStats {
  std::map<std::string, int64_t> applied;  // by action kind: "Cordon", "Evict", ...
  std::map<std::string, int64_t> failed;
  std::map<std::string, int64_t> skipped;  // Skipped notes by rail
  std::string last_error;
};

class PlanExecutor {
 public:
  PlanExecutor(kubeclient::Client& client, kubeclient::EventRecorder& events,
               ExecutorOptions options, WebhookCaller webhook);

  // Applies `plan` to the nodes of `nodes` (by name: uid, bootID, GPU count). Returns how many
  // actions failed.
  int Apply(const remediation::Plan& plan, const remediation::Config& config,
            const std::map<std::string, const ObservedNode*>& nodes, core::Time now);

  // Uids of pods whose last eviction a PodDisruptionBudget refused within `retry` of `now`:
  // the view marks them, and they are not asked again before `retry` has passed.
  std::set<std::string> PdbBlocked(core::Time now, std::chrono::seconds retry);
  // Forgets the 429 of pods no longer running (their uid left the cache).
  void ForgetPods(const std::set<std::string>& live_uids);

  ExecutionStats Stats() const;

 private:
  Status ApplyOne(const remediation::Action& action, const remediation::Config& config,
                  const std::map<std::string, const ObservedNode*>& nodes, core::Time now);
  Status SetRecord(const remediation::SetRecord& a);
  Status EditTaints(const std::string& node, const std::function<void(nlohmann::json&)>& edit);
  Status Evict(const remediation::Evict& a, const remediation::Config& config, core::Time now);
  Status StartStep(const remediation::StartStep& a, const remediation::Config& config,
                   const ObservedNode* node);
  Status StartValidation(const remediation::StartValidation& a, const remediation::Config& config,
                         const ObservedNode* node);
  Status CreateIfAbsent(const kubeclient::Resource& resource, const std::string& json);
  Status WriteIncident(const std::string& node, const remediation::NodeRecord& record,
                       const std::string& outcome);

  kubeclient::Client& client_;
  kubeclient::EventRecorder& events_;
  const ExecutorOptions options_;
  WebhookCaller webhook_;
  mutable std::mutex mu_;
  ExecutionStats stats_;
  std::map<std::string, core::Time> pdb_refused_;               // pod uid -> when
  std::map<std::string, remediation::NodeRecord> last_record_;  // for the Escalate outcome
  std::set<std::string> gangs_marked_;  // "<gang>/<incident>": a PodGroup is annotated once
};

}  // namespace quotient::remediator
