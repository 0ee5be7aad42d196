// The scheduler's Prometheus metrics, named as KAI's scheduler names them so that KAI's
// dashboards and alerts work unchanged (docs/design/telemetry.md lists them, with the few
// Quotient additions). Every name is "<prefix>_<name>"; KAI's prefix is "kai", ours "quotient".
//
// Units: callers hand over the project's fixed-point integers (CPU in millicores, memory in
// bytes, GPUs in milli-GPUs) and std::chrono durations. They are converted to the exported unit
// here and nowhere else: cores = millicores / 1000, GB = bytes / 1e9 (decimal, as KAI's
// MemoryToGB), GPUs = milli-GPUs / 1000; KAI's *_milliseconds gauges and histograms hold whole
// milliseconds (KAI truncates with Duration.Milliseconds()), our *_seconds histograms fractional
// seconds.
//
// Thread safety: every method may be called from any thread; prometheus-cpp's metrics are
// atomic and the queue set is guarded here.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quotient::telemetry {

// One queue's fair share, as the cycle computed it, and usage. Usage means what KAI's
// queue_*_usage means: the queue's historical usage as the usage source reports it (time-based
// fair share), not its current allocation; zero while there is no usage source.
struct QueueMetrics {
  std::string name;
  int64_t fair_share_cpu_millicores = 0;
  int64_t fair_share_memory_bytes = 0;
  int64_t fair_share_gpu_milli = 0;
  int64_t usage_cpu_millicores = 0;
  int64_t usage_memory_bytes = 0;
  int64_t usage_gpu_milli = 0;
  // What KAI's queue controller exports (queue_deserved_gpus, queue_quota_*, queue_allocated_*):
  // the spec quota, empty = unlimited (exported as -1, as KAI does), and what the queue's pods
  // hold now.
  std::optional<int64_t> deserved_gpu_milli = std::nullopt;
  std::optional<int64_t> deserved_cpu_millicores = std::nullopt;
  std::optional<int64_t> deserved_memory_bytes = std::nullopt;
  int64_t allocated_gpu_milli = 0;
  int64_t allocated_cpu_millicores = 0;
  int64_t allocated_memory_bytes = 0;
};

// A prefix is a metric-name start: [a-zA-Z_][a-zA-Z0-9_]*, or empty for bare names (KAI's
// --metrics-namespace=""). The error names the flag value.
Status ValidateMetricsPrefix(std::string_view prefix);

// `count` boundaries start, start*factor, ... (Prometheus' ExponentialBuckets).
prometheus::Histogram::BucketBoundaries ExponentialBuckets(double start, double factor, int count);

class SchedulerMetrics {
 public:
  using Duration = std::chrono::nanoseconds;

  // `prefix` must pass ValidateMetricsPrefix (prometheus-cpp throws std::invalid_argument on a
  // bad metric name); check the flag first.
  explicit SchedulerMetrics(std::string prefix = "quotient");

  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  // One scheduling cycle: e2e/open/close session gauges (ms) and the cycle_duration_seconds
  // histogram (total).
  void RecordCycle(Duration total, Duration open_session, Duration close_session);
  // One action in a cycle: action_scheduling_latency_milliseconds{action} gauge and
  // action_duration_seconds{action} histogram.
  void RecordAction(std::string_view action, Duration duration);
  // Pod creation until its bind attempt.
  void RecordTaskSchedulingLatency(std::chrono::milliseconds latency);
  // From the bind decision until the bind call returned.
  void RecordBindLatency(std::chrono::milliseconds latency);

  void PodGroupScheduled(std::string_view action);
  void PodGroupActedOn(std::string_view action);
  void PreemptionAttempt();
  void PodEvicted(std::string_view podgroup, std::string_view uid, std::string_view nodepool,
                  std::string_view action);

  // Replaces the whole queue set: series of queues absent from `queues` are removed, so a
  // deleted queue does not linger at its last value.
  void SetQueues(const std::vector<QueueMetrics>& queues);

  // binds_total counts every bind call, bind_failures_total the failed ones among them.
  void Bind(bool ok);
  // evictions_total counts evictions made; evictions_blocked_total those a
  // PodDisruptionBudget refused.
  void Eviction(bool blocked);
  void SetPendingPods(int64_t count);
  void SetLeader(bool leader);

  prometheus::Registry& registry() { return registry_; }
  const prometheus::Registry& registry() const { return registry_; }
  // The metrics in Prometheus text format 0.0.4, as /metrics serves them.
  std::string Text() const;

 private:
  struct QueueSeries {
    prometheus::Gauge* fair_share_cpu;
    prometheus::Gauge* fair_share_memory;
    prometheus::Gauge* fair_share_gpu;
    prometheus::Gauge* usage_cpu;
    prometheus::Gauge* usage_memory;
    prometheus::Gauge* usage_gpu;
    prometheus::Gauge* info;
    prometheus::Gauge* deserved_gpu;
    prometheus::Gauge* quota_cpu;
    prometheus::Gauge* quota_memory;
    prometheus::Gauge* allocated_gpu;
    prometheus::Gauge* allocated_cpu;
    prometheus::Gauge* allocated_memory;
  };
  QueueSeries AddQueueSeries(const std::string& queue_name);
  void RemoveQueueSeries(const QueueSeries& series);

  std::string Name(std::string_view name) const;

  std::string prefix_;
  prometheus::Registry registry_;

  // KAI's scheduler metrics.
  prometheus::Gauge& e2e_latency_ms_;
  prometheus::Gauge& open_session_latency_ms_;
  prometheus::Gauge& close_session_latency_ms_;
  prometheus::Family<prometheus::Gauge>& action_latency_ms_;
  prometheus::Histogram& task_scheduling_latency_ms_;
  prometheus::Histogram& task_bind_latency_ms_;
  prometheus::Family<prometheus::Counter>& podgroups_scheduled_;
  prometheus::Family<prometheus::Counter>& podgroups_acted_on_;
  prometheus::Counter& preemption_attempts_;
  prometheus::Family<prometheus::Counter>& evicted_pods_;
  prometheus::Family<prometheus::Gauge>& queue_fair_share_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_fair_share_memory_;
  prometheus::Family<prometheus::Gauge>& queue_fair_share_gpu_;
  prometheus::Family<prometheus::Gauge>& queue_usage_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_usage_memory_;
  prometheus::Family<prometheus::Gauge>& queue_usage_gpu_;
  // KAI's queue-controller metrics (a separate component there).
  prometheus::Family<prometheus::Gauge>& queue_info_;
  prometheus::Family<prometheus::Gauge>& queue_deserved_gpus_;
  prometheus::Family<prometheus::Gauge>& queue_quota_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_quota_memory_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_gpus_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_memory_;

  // Quotient's additions.
  prometheus::Histogram& cycle_duration_;
  prometheus::Family<prometheus::Histogram>& action_duration_;
  prometheus::Counter& binds_;
  prometheus::Counter& bind_failures_;
  prometheus::Counter& evictions_;
  prometheus::Counter& evictions_blocked_;
  prometheus::Gauge& pending_pods_;
  prometheus::Gauge& is_leader_;

  std::mutex queues_mu_;
  std::map<std::string, QueueSeries> queues_;  // guarded by queues_mu_
};

}  // namespace quotient::telemetry
