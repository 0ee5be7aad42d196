// `quotient scheduler`: the scheduling loop against a live cluster. It keeps a ClusterCache in
// step with the API server, runs a cycle (the same scheduler::Run `quotient schedule` uses)
// whenever something relevant changed — debounced — and at least every schedule period, and
// carries the cycle's decisions out: binds through the pods/binding subresource on a bounded
// pool of workers, handed over as each is committed, while the cycle goes on (the pod counts as
// bound from the moment of the decision), evictions through
// the Eviction API, and what users read (pod conditions, Events, Queue and PodGroup status).
//
// A bind that fails is rolled back (the pod is pending again) and the pod sits out cycles with
// a per-pod exponential backoff, so a pod whose bind keeps failing does not take the same
// resources ahead of others every cycle (KAI #2075). The binds of one gang decided in a cycle
// share a fate: once one of them fails, the gang's binds not yet sent are released too (and the
// gang backs off), so a gang is not left bound in part when the failure is seen in time. Pods
// already bound cannot be unbound; the next cycles complete the gang or, if it stays below its
// minimum, the stale-gang action evicts it.
//
// The configuration file is re-read when it changes (a ConfigMap mount is swapped atomically);
// a file that does not parse keeps the previous configuration and says why in the log.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "framework/config.h"
#include "kubeclient/client.h"
#include "scheduler/run.h"
#include "service/cluster_cache.h"
#include "service/dashboard.h"
#include "service/gpu_sharing_binder.h"
#include "service/status_json.h"
#include "service/status_writer.h"
#include "telemetry/scheduler_metrics.h"

namespace quotient::service {

struct ServiceOptions {
  std::string scheduler_name = "quotient";
  std::chrono::milliseconds schedule_period{1000};
  std::chrono::milliseconds debounce{50};  // a burst of events makes one cycle
  framework::SchedulerConfig config;
  // The file `config` came from ("" = none): re-read when its content changes.
  std::string config_path;
  std::chrono::milliseconds config_check_interval{2000};
  Shard shard;
  std::string queue_label_key = "kai.scheduler/queue";
  // Pods a controller owns wait for the pod grouper's PodGroup instead of getting an implicit
  // group of one (core::SnapshotOptions::group_owned_pods_implicitly), so no gang member runs
  // alone. On when the pod grouper is deployed (the Helm chart's default).
  bool wait_for_pod_grouper = false;
  int bind_workers = 16;
  std::chrono::milliseconds bind_backoff_initial{1000};
  std::chrono::milliseconds bind_backoff_max{60'000};
  telemetry::SchedulerMetrics* metrics = nullptr;  // optional
  // Fractional pods: reservation pods, group labels and ConfigMaps before the bind, and the
  // collection of reservations nobody holds (GpuSharingBinder). nullopt: fractional pods are
  // bound like any other (offline tests without the webhook).
  std::optional<GpuSharingOptions> gpu_sharing;
  std::chrono::milliseconds gpu_collect_period{5000};
  // The live dashboard (--dashboard): told of every cycle and eviction, and given the cycle's
  // state when it wants one (someone watches; dashboard.h). Optional; it must outlive the service.
  Dashboard* dashboard = nullptr;
};

struct ServiceStats {
  int64_t cycles = 0;
  int64_t binds = 0;
  int64_t bind_failures = 0;
  int64_t binds_released = 0;  // not sent because another bind of the same gang failed
  int64_t evictions = 0;
  int64_t evictions_blocked = 0;
  int64_t config_reloads = 0;
  int64_t gpu_reservations_deleted = 0;
  int64_t gpu_orphans_deleted = 0;
  std::string last_error;
};

class SchedulerService {
 public:
  SchedulerService(kubeclient::Client& client, ServiceOptions options);
  ~SchedulerService();
  SchedulerService(const SchedulerService&) = delete;
  SchedulerService& operator=(const SchedulerService&) = delete;

  // Starts the cache, waits for it to sync, then schedules until `stop`; the cycle in progress
  // finishes, then the bind workers stop after the binds already handed to them.
  void Run(std::stop_token stop);

  // One cycle now (used by Run; public for tests that drive cycles themselves).
  void RunCycle();
  ServiceStats Stats() const;
  // The cache has listed everything once and cycles run.
  bool Ready() const { return ready_; }
  ClusterCache& cache() { return cache_; }

 private:
  // The binds of one gang decided in the same cycle.
  struct GangBind {
    std::string group;
    std::atomic<bool> failed{false};
  };
  struct BindTask {
    std::string pod;
    std::string uid;
    std::string node;
    std::shared_ptr<GangBind> gang;  // null for a lone pod
    std::chrono::system_clock::time_point created{};
    std::vector<std::string> gpu_groups;  // shared GPU groups the decision gives it
    std::optional<int64_t> node_gpu_memory_mib;
  };
  void StopAll();
  void BindWorker(std::stop_token stop);
  void Bind(const BindTask& task);
  // The pod's bind did not happen: pending again, and it backs off (caller holds mu_).
  void Release(const std::string& pod);
  bool InBackoff(const std::string& pod, std::chrono::steady_clock::time_point now) const;
  void MaybeReloadConfig();
  // True when the Eviction API took the eviction (not refused, not blocked by a budget).
  bool Evict(const framework::Decision& d, const std::string& group);
  // The bind of `task` failed (`why`): recorded, the gang told, the pod released (mu_ held).
  void BindFailed(const BindTask& task, const std::string& why);
  void MaybeCollectGpuReservations();
  void ReportGroups(const scheduler::RunReport& report);
  // Queue status with its Valid condition, and a Warning Event when the condition changes.
  void ReportQueues(const scheduler::RunReport& report);
  // The cycle's state for options_.dashboard.
  void PublishDashboard(const core::Snapshot& snapshot, const scheduler::RunReport& report,
                        std::chrono::system_clock::time_point started,
                        std::chrono::milliseconds took);

  kubeclient::Client& client_;
  ServiceOptions options_;
  ClusterCache cache_;
  StatusWriter status_;
  std::atomic<bool> ready_{false};

  std::string config_text_;  // the configuration file as last read
  std::chrono::steady_clock::time_point config_checked_{};
  std::map<std::string, SchedulingCondition> conditions_;   // by PodGroup, as last written
  std::map<std::string, QueueCondition> queue_conditions_;  // by Queue, as last written

  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  bool dirty_ = true;
  ServiceStats stats_;
  std::deque<BindTask> bind_queue_;
  std::condition_variable_any bind_ready_;
  struct Backoff {
    std::chrono::milliseconds delay{0};
    std::chrono::steady_clock::time_point until{};
  };
  std::map<std::string, Backoff> backoff_;        // pods whose bind failed
  std::unique_ptr<GpuSharingBinder> gpu_binder_;  // null without options_.gpu_sharing
  std::chrono::steady_clock::time_point gpu_collected_{};
  std::vector<std::jthread> workers_;
};

}  // namespace quotient::service
