// `quotient scheduler`: the scheduling loop against a live cluster. It keeps a ClusterCache in
// step with the API server, runs a cycle (the same scheduler::Run `quotient schedule` uses)
// whenever something relevant changed — debounced — and at least every schedule period, and
// carries the cycle's decisions out: binds through the pods/binding subresource on a bounded
// pool of workers (the pod counts as bound from the moment of the decision), evictions through
// the Eviction API.
//
// A bind that fails is rolled back (the pod is pending again) and the pod sits out cycles with
// a per-pod exponential backoff, so a pod whose bind keeps failing does not take the same
// resources ahead of others every cycle (KAI #2075).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "framework/config.h"
#include "kubeclient/client.h"
#include "scheduler/run.h"
#include "service/cluster_cache.h"
#include "service/status_writer.h"

namespace quotient::service {

struct ServiceOptions {
  std::string scheduler_name = "quotient";
  std::chrono::milliseconds schedule_period{1000};
  std::chrono::milliseconds debounce{50};  // a burst of events makes one cycle
  framework::SchedulerConfig config;
  int bind_workers = 16;
  std::chrono::milliseconds bind_backoff_initial{1000};
  std::chrono::milliseconds bind_backoff_max{60'000};
};

// The status object written to a Queue after a cycle (JSON text).
std::string QueueStatusJson(const scheduler::QueueReport& queue);

struct ServiceStats {
  int64_t cycles = 0;
  int64_t binds = 0;
  int64_t bind_failures = 0;
  int64_t evictions = 0;
  int64_t evictions_blocked = 0;
  std::string last_error;
};

class SchedulerService {
 public:
  SchedulerService(kubeclient::Client& client, ServiceOptions options);
  ~SchedulerService();
  SchedulerService(const SchedulerService&) = delete;
  SchedulerService& operator=(const SchedulerService&) = delete;

  // Starts the cache, waits for it to sync, then schedules until `stop`; then stops the bind
  // workers after the binds already handed to them.
  void Run(std::stop_token stop);

  // One cycle now (used by Run; public for tests that drive cycles themselves).
  void RunCycle();
  ServiceStats Stats() const;
  ClusterCache& cache() { return cache_; }

 private:
  struct BindTask {
    std::string pod;
    std::string uid;
    std::string node;
  };
  void StopAll();
  void BindWorker(std::stop_token stop);
  void Bind(const BindTask& task);
  bool InBackoff(const std::string& pod, std::chrono::steady_clock::time_point now) const;

  kubeclient::Client& client_;
  ServiceOptions options_;
  ClusterCache cache_;
  StatusWriter status_;

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
  std::map<std::string, Backoff> backoff_;  // pods whose bind failed
  std::vector<std::jthread> workers_;
};

}  // namespace quotient::service
