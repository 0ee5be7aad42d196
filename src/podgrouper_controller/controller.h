// `quotient podgrouper`: gives every pod of our scheduler the PodGroup its workload needs.
//
// It watches the pods whose spec.schedulerName is ours, and for each finds its owners (through
// OwnerResolver, any kind), asks the groupers (src/podgrouper) for the grouping, then:
//   - creates the PodGroup, owned by the top owner (or the pod), when it does not exist; an
//     existing one has its gang minimum and subgroups brought up to date (elastic scale up and
//     down) and its queue left alone (KAI never moves a running workload to another queue);
//   - sets the pod's `pod-group-name` annotation and `kai.scheduler/subgroup-name` label;
//   - reports the groupers' warnings as PodGrouperWarning Events on the pod, once per change.
// Pods are reconciled from a work queue (failures retried with backoff) and all of them again
// every resync period, which also picks up owners whose size changed.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

#include "kubeclient/client.h"
#include "kubeclient/event_recorder.h"
#include "kubeclient/informer.h"
#include "kubeclient/work_queue.h"
#include "podgrouper/grouping.h"
#include "podgrouper_controller/owner_resolver.h"

namespace quotient::podgrouper_controller {

struct ControllerOptions {
  std::string scheduler_name = "quotient";
  podgrouper::Settings settings;
  std::chrono::seconds resync{30};
  std::chrono::seconds owner_ttl{10};
  int workers = 4;
};

struct ControllerStats {
  int64_t reconciles = 0;
  int64_t failures = 0;
  int64_t pod_groups_created = 0;
  int64_t pod_groups_updated = 0;
  int64_t pods_labelled = 0;
  int64_t warnings = 0;
  std::string last_error;
};

class PodGrouperController {
 public:
  PodGrouperController(kubeclient::Client& client, ControllerOptions options);
  ~PodGrouperController();
  PodGrouperController(const PodGrouperController&) = delete;
  PodGrouperController& operator=(const PodGrouperController&) = delete;

  // Starts the informers, waits for them to sync, then reconciles until `stop`.
  void Run(std::stop_token stop);
  bool Ready() const { return ready_.load(); }
  ControllerStats Stats() const;

  // One pod by key ("namespace/name"): what a worker does with a key from the queue.
  Status Reconcile(const std::string& key);

 private:
  class View;
  Status EnsurePodGroup(const podgrouper::PodGroupSpec& wanted);
  Status LabelPod(const podgrouper::Object& pod, const podgrouper::Grouping& grouping);
  void ReportWarnings(const podgrouper::Object& pod, const podgrouper::Grouping& grouping);
  void Worker();

  kubeclient::Client& client_;
  const ControllerOptions options_;
  OwnerResolver owners_;
  kubeclient::Informer<podgrouper::Object> pods_;
  kubeclient::Informer<podgrouper::PodGroupSpec> pod_groups_;
  kubeclient::Informer<bool> priority_classes_;
  kubeclient::WorkQueue queue_;
  kubeclient::EventRecorder events_;
  std::unique_ptr<View> view_;
  std::atomic<bool> ready_{false};
  mutable std::mutex mu_;
  ControllerStats stats_;
  std::map<std::string, std::string> warned_;  // by pod key: the warnings last reported
};

}  // namespace quotient::podgrouper_controller
