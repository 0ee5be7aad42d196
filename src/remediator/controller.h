// `quotient remediator`: the controller that takes failing nodes out, repairs them, validates
// them and brings them back (issue 12; src/remediation/README.md has the state machine).
//
// It watches Nodes, the pods of the cluster (not the finished ones), and its own step objects
// (pods, Jobs, webhook results in its namespace). On any change, and when the last plan asked
// for it (a confirm window, a timeout, a hold-down), it builds the fleet view from the caches
// (fleet_view.h), asks remediation::Decide for a plan, and applies it (executor.h). Reconciles
// are single-threaded and at most one per second: Decide sees the whole fleet at once (the rails
// count across nodes), so there is nothing to gain from running two.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>

#include "kubeclient/client.h"
#include "kubeclient/event_recorder.h"
#include "kubeclient/informer.h"
#include "remediation/config.h"
#include "remediator/executor.h"
#include "remediator/observed.h"

namespace prometheus {
class Registry;
}

namespace quotient::remediator {

struct RemediatorOptions {
  remediation::Config config = remediation::DefaultConfig();
  ExecutorOptions executor;                      // the namespace and image of the step objects
  std::chrono::seconds resync{30};               // reconcile at least this often
  std::chrono::milliseconds min_interval{1000};  // between two reconciles
  std::string identity = "quotient-remediator";  // reportingInstance of its Events
};

struct RemediatorStats {
  int64_t reconciles = 0;
  std::map<std::string, int64_t> nodes_by_state;  // of the last reconcile
  std::vector<std::string> problems;              // of the last reconcile (unreadable records)
  ExecutionStats execution;
};

class Remediator {
 public:
  using WallNow = std::function<core::Time()>;
  // `registry` (optional) receives the quotient_remediation_* metrics.
  Remediator(kubeclient::Client& client, RemediatorOptions options,
             prometheus::Registry* registry = nullptr, WebhookCaller webhook = CurlWebhookCaller(),
             WallNow now = {});
  ~Remediator();
  Remediator(const Remediator&) = delete;
  Remediator& operator=(const Remediator&) = delete;

  // Starts the informers, waits for them to sync, then reconciles until `stop`.
  void Run(std::stop_token stop);
  bool Ready() const { return ready_.load(); }
  RemediatorStats Stats() const;

 private:
  struct Metrics;
  // Builds the view, decides and applies; returns when to come back (nullopt: on a change).
  std::optional<core::Time> ReconcileOnce(core::Time now);
  // Deletes the step objects of incidents that are over (or of nodes that are gone): the
  // incident record keeps what they did.
  void CollectStepObjects(const remediation::FleetView& view);
  void Poke();
  void Stop();

  kubeclient::Client& client_;
  const RemediatorOptions options_;
  WallNow now_;
  kubeclient::Informer<ObservedNode> nodes_;
  kubeclient::Informer<ObservedPod> pods_;       // every pod not finished
  kubeclient::Informer<ObservedPod> step_pods_;  // ours, finished ones included
  kubeclient::Informer<ObservedStep> step_jobs_;
  kubeclient::Informer<ObservedStep> step_results_;
  kubeclient::EventRecorder events_;
  PlanExecutor executor_;
  std::unique_ptr<Metrics> metrics_;
  std::atomic<bool> ready_{false};
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  bool dirty_ = true;
  RemediatorStats stats_;
  std::set<std::string> collected_;  // step objects deleted, until the informers drop them
};

}  // namespace quotient::remediator
