#include "telemetry/scheduler_metrics.h"

#include <set>

#include "telemetry/ops_server.h"

namespace quotient::telemetry {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// The exported units (see the header): KAI's MilliCPUToCores and MemoryToGB.
constexpr double kMillicoresPerCore = 1000.0;
constexpr double kBytesPerGb = 1e9;
constexpr double kMilliGpusPerGpu = 1000.0;

double InUnits(int64_t fixed_point, double per_unit) {
  return static_cast<double>(fixed_point) / per_unit;
}

double WholeMilliseconds(SchedulerMetrics::Duration duration) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::milliseconds>(duration).count());
}

double Seconds(SchedulerMetrics::Duration duration) {
  return std::chrono::duration<double>(duration).count();
}

// KAI's task latency buckets: 5 ms doubling to 2560 ms (ExponentialBuckets(5, 2, 10)).
prometheus::Histogram::BucketBoundaries TaskLatencyBucketsMs() {
  return ExponentialBuckets(5, 2, 10);
}

// Cycles and actions take from about a millisecond (a quiet cluster) to seconds (KAI issue
// #315 reports 2-3 s cycles on 4000 nodes); 1-2.5-5 steps cover that range at 13 buckets.
prometheus::Histogram::BucketBoundaries DurationBucketsSeconds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

Status ValidateMetricsPrefix(std::string_view prefix) {
  bool valid = prefix.empty() || IsNameStart(prefix.front());
  for (char c : prefix) valid = valid && IsNameChar(c);
  if (valid) return Status::Ok();
  return Status::Error("metrics prefix \"" + std::string(prefix) +
                       "\": expected letters, digits and underscores, not starting with a digit");
}

prometheus::Histogram::BucketBoundaries ExponentialBuckets(double start, double factor, int count) {
  prometheus::Histogram::BucketBoundaries buckets;
  double bound = start;
  for (int i = 0; i < count; ++i, bound *= factor) buckets.push_back(bound);
  return buckets;
}

std::string SchedulerMetrics::Name(std::string_view name) const {
  return prefix_.empty() ? std::string(name) : prefix_ + "_" + std::string(name);
}

SchedulerMetrics::SchedulerMetrics(std::string prefix)
    : prefix_(std::move(prefix)),
      e2e_latency_ms_(BuildGauge()
                          .Name(Name("e2e_scheduling_latency_milliseconds"))
                          .Help("E2e scheduling latency in milliseconds (scheduling algorithm + "
                                "binding), as a gauge")
                          .Register(registry_)
                          .Add({})),
      open_session_latency_ms_(
          BuildGauge()
              .Name(Name("open_session_latency_milliseconds"))
              .Help("Open session latency in milliseconds, including all plugins, as a gauge")
              .Register(registry_)
              .Add({})),
      close_session_latency_ms_(
          BuildGauge()
              .Name(Name("close_session_latency_milliseconds"))
              .Help("Close session latency in milliseconds, including all plugins, as a gauge")
              .Register(registry_)
              .Add({})),
      action_latency_ms_(BuildGauge()
                             .Name(Name("action_scheduling_latency_milliseconds"))
                             .Help("Action scheduling latency in milliseconds, as a gauge")
                             .Register(registry_)),
      task_scheduling_latency_ms_(
          BuildHistogram()
              .Name(Name("task_scheduling_latency_milliseconds"))
              .Help("Task scheduling latency in milliseconds, from pod creation to bind attempt")
              .Register(registry_)
              .Add({}, TaskLatencyBucketsMs())),
      task_bind_latency_ms_(BuildHistogram()
                                .Name(Name("task_bind_latency_milliseconds"))
                                .Help("Task bind latency histogram in milliseconds")
                                .Register(registry_)
                                .Add({}, TaskLatencyBucketsMs())),
      podgroups_scheduled_(BuildCounter()
                               .Name(Name("podgroups_scheduled_by_action"))
                               .Help("Count of podgroups scheduled per action")
                               .Register(registry_)),
      podgroups_acted_on_(BuildCounter()
                              .Name(Name("podgroups_acted_on_by_action"))
                              .Help("Count of podgroups tried per action")
                              .Register(registry_)),
      preemption_attempts_(BuildCounter()
                               .Name(Name("total_preemption_attempts"))
                               .Help("Total preemption attempts in the cluster till now")
                               .Register(registry_)
                               .Add({})),
      evicted_pods_(BuildCounter()
                        .Name(Name("pod_group_evicted_pods_total"))
                        .Help("Total number of pods evicted per pod group")
                        .Register(registry_)),
      queue_fair_share_cpu_(BuildGauge()
                                .Name(Name("queue_fair_share_cpu_cores"))
                                .Help("CPU fair share of queue, as a gauge. Value is in cores")
                                .Register(registry_)),
      queue_fair_share_memory_(BuildGauge()
                                   .Name(Name("queue_fair_share_memory_gb"))
                                   .Help("Memory fair share of queue, as a gauge. Value is in GB")
                                   .Register(registry_)),
      queue_fair_share_gpu_(
          BuildGauge()
              .Name(Name("queue_fair_share_gpu"))
              .Help("GPU fair share of queue, as a gauge. Value is in GPU devices")
              .Register(registry_)),
      queue_usage_cpu_(BuildGauge()
                           .Name(Name("queue_cpu_usage"))
                           .Help("Historical CPU usage of queue, as a gauge. Value is in cores")
                           .Register(registry_)),
      queue_usage_memory_(BuildGauge()
                              .Name(Name("queue_memory_usage"))
                              .Help("Historical memory usage of queue, as a gauge. Value is in GB")
                              .Register(registry_)),
      queue_usage_gpu_(
          BuildGauge()
              .Name(Name("queue_gpu_usage"))
              .Help("Historical GPU usage of queue, as a gauge. Value is in GPU devices")
              .Register(registry_)),
      queue_info_(BuildGauge()
                      .Name(Name("queue_info"))
                      .Help("Queues the scheduler knows, one series per queue with value 1")
                      .Register(registry_)),
      queue_deserved_gpus_(BuildGauge()
                               .Name(Name("queue_deserved_gpus"))
                               .Help("GPU quota of queue (spec), -1 for unlimited")
                               .Register(registry_)),
      queue_quota_cpu_(BuildGauge()
                           .Name(Name("queue_quota_cpu_cores"))
                           .Help("CPU quota of queue (spec) in cores, -1 for unlimited")
                           .Register(registry_)),
      queue_quota_memory_(BuildGauge()
                              .Name(Name("queue_quota_memory_bytes"))
                              .Help("Memory quota of queue (spec) in bytes, -1 for unlimited")
                              .Register(registry_)),
      queue_allocated_gpus_(BuildGauge()
                                .Name(Name("queue_allocated_gpus"))
                                .Help("GPUs allocated to the queue's pods")
                                .Register(registry_)),
      queue_allocated_cpu_(BuildGauge()
                               .Name(Name("queue_allocated_cpu_cores"))
                               .Help("CPU cores allocated to the queue's pods")
                               .Register(registry_)),
      queue_allocated_memory_(BuildGauge()
                                  .Name(Name("queue_allocated_memory_bytes"))
                                  .Help("Memory bytes allocated to the queue's pods")
                                  .Register(registry_)),
      cycle_duration_(BuildHistogram()
                          .Name(Name("cycle_duration_seconds"))
                          .Help("Duration of a whole scheduling cycle in seconds")
                          .Register(registry_)
                          .Add({}, DurationBucketsSeconds())),
      action_duration_(BuildHistogram()
                           .Name(Name("action_duration_seconds"))
                           .Help("Duration of one action of a scheduling cycle in seconds")
                           .Register(registry_)),
      binds_(BuildCounter()
                 .Name(Name("binds_total"))
                 .Help("Bind calls made, successful or not")
                 .Register(registry_)
                 .Add({})),
      bind_failures_(BuildCounter()
                         .Name(Name("bind_failures_total"))
                         .Help("Bind calls that failed")
                         .Register(registry_)
                         .Add({})),
      evictions_(BuildCounter()
                     .Name(Name("evictions_total"))
                     .Help("Pods evicted")
                     .Register(registry_)
                     .Add({})),
      evictions_blocked_(BuildCounter()
                             .Name(Name("evictions_blocked_total"))
                             .Help("Evictions refused by a PodDisruptionBudget")
                             .Register(registry_)
                             .Add({})),
      pending_pods_(BuildGauge()
                        .Name(Name("pending_pods"))
                        .Help("Pods waiting to be scheduled at the end of the last cycle")
                        .Register(registry_)
                        .Add({})),
      is_leader_(BuildGauge()
                     .Name(Name("is_leader"))
                     .Help("1 while this replica holds the leader lease (or runs without "
                           "leader election), 0 otherwise")
                     .Register(registry_)
                     .Add({})) {}

void SchedulerMetrics::RecordCycle(Duration total, Duration open_session, Duration close_session) {
  e2e_latency_ms_.Set(WholeMilliseconds(total));
  open_session_latency_ms_.Set(WholeMilliseconds(open_session));
  close_session_latency_ms_.Set(WholeMilliseconds(close_session));
  cycle_duration_.Observe(Seconds(total));
}

void SchedulerMetrics::RecordAction(std::string_view action, Duration duration) {
  prometheus::Labels labels{{"action", std::string(action)}};
  action_latency_ms_.Add(labels).Set(WholeMilliseconds(duration));
  action_duration_.Add(labels, DurationBucketsSeconds()).Observe(Seconds(duration));
}

void SchedulerMetrics::RecordTaskSchedulingLatency(std::chrono::milliseconds latency) {
  task_scheduling_latency_ms_.Observe(static_cast<double>(latency.count()));
}

void SchedulerMetrics::RecordBindLatency(std::chrono::milliseconds latency) {
  task_bind_latency_ms_.Observe(static_cast<double>(latency.count()));
}

void SchedulerMetrics::PodGroupScheduled(std::string_view action) {
  podgroups_scheduled_.Add({{"action", std::string(action)}}).Increment();
}

void SchedulerMetrics::PodGroupActedOn(std::string_view action) {
  podgroups_acted_on_.Add({{"action", std::string(action)}}).Increment();
}

void SchedulerMetrics::PreemptionAttempt() { preemption_attempts_.Increment(); }

void SchedulerMetrics::PodEvicted(std::string_view podgroup, std::string_view uid,
                                  std::string_view nodepool, std::string_view action) {
  evicted_pods_
      .Add({{"podgroup", std::string(podgroup)},
            {"uid", std::string(uid)},
            {"nodepool", std::string(nodepool)},
            {"action", std::string(action)}})
      .Increment();
}

SchedulerMetrics::QueueSeries SchedulerMetrics::AddQueueSeries(const std::string& queue_name) {
  prometheus::Labels labels{{"queue_name", queue_name}};
  return {&queue_fair_share_cpu_.Add(labels),
          &queue_fair_share_memory_.Add(labels),
          &queue_fair_share_gpu_.Add(labels),
          &queue_usage_cpu_.Add(labels),
          &queue_usage_memory_.Add(labels),
          &queue_usage_gpu_.Add(labels),
          &queue_info_.Add(labels),
          &queue_deserved_gpus_.Add(labels),
          &queue_quota_cpu_.Add(labels),
          &queue_quota_memory_.Add(labels),
          &queue_allocated_gpus_.Add(labels),
          &queue_allocated_cpu_.Add(labels),
          &queue_allocated_memory_.Add(labels)};
}

void SchedulerMetrics::RemoveQueueSeries(const QueueSeries& series) {
  queue_fair_share_cpu_.Remove(series.fair_share_cpu);
  queue_fair_share_memory_.Remove(series.fair_share_memory);
  queue_fair_share_gpu_.Remove(series.fair_share_gpu);
  queue_usage_cpu_.Remove(series.usage_cpu);
  queue_usage_memory_.Remove(series.usage_memory);
  queue_usage_gpu_.Remove(series.usage_gpu);
  queue_info_.Remove(series.info);
  queue_deserved_gpus_.Remove(series.deserved_gpu);
  queue_quota_cpu_.Remove(series.quota_cpu);
  queue_quota_memory_.Remove(series.quota_memory);
  queue_allocated_gpus_.Remove(series.allocated_gpu);
  queue_allocated_cpu_.Remove(series.allocated_cpu);
  queue_allocated_memory_.Remove(series.allocated_memory);
}

void SchedulerMetrics::SetQueues(const std::vector<QueueMetrics>& queues) {
  std::lock_guard lock(queues_mu_);
  std::set<std::string> present;
  for (const QueueMetrics& queue : queues) {
    present.insert(queue.name);
    auto found = queues_.find(queue.name);
    if (found == queues_.end()) {
      found = queues_.emplace(queue.name, AddQueueSeries(queue.name)).first;
    }
    const QueueSeries& series = found->second;
    series.fair_share_cpu->Set(InUnits(queue.fair_share_cpu_millicores, kMillicoresPerCore));
    series.fair_share_memory->Set(InUnits(queue.fair_share_memory_bytes, kBytesPerGb));
    series.fair_share_gpu->Set(InUnits(queue.fair_share_gpu_milli, kMilliGpusPerGpu));
    series.usage_cpu->Set(InUnits(queue.usage_cpu_millicores, kMillicoresPerCore));
    series.usage_memory->Set(InUnits(queue.usage_memory_bytes, kBytesPerGb));
    series.usage_gpu->Set(InUnits(queue.usage_gpu_milli, kMilliGpusPerGpu));
    // The queue controller's: quotas as in the spec (-1 unlimited), memory in bytes.
    const auto quota = [](const std::optional<int64_t>& amount, double per_unit) {
      return amount ? InUnits(*amount, per_unit) : -1.0;
    };
    series.info->Set(1);
    series.deserved_gpu->Set(quota(queue.deserved_gpu_milli, kMilliGpusPerGpu));
    series.quota_cpu->Set(quota(queue.deserved_cpu_millicores, kMillicoresPerCore));
    series.quota_memory->Set(quota(queue.deserved_memory_bytes, 1));
    series.allocated_gpu->Set(InUnits(queue.allocated_gpu_milli, kMilliGpusPerGpu));
    series.allocated_cpu->Set(InUnits(queue.allocated_cpu_millicores, kMillicoresPerCore));
    series.allocated_memory->Set(InUnits(queue.allocated_memory_bytes, 1));
  }
  for (auto it = queues_.begin(); it != queues_.end();) {
    if (present.contains(it->first)) {
      ++it;
    } else {
      RemoveQueueSeries(it->second);
      it = queues_.erase(it);
    }
  }
}

void SchedulerMetrics::Bind(bool ok) {
  binds_.Increment();
  if (!ok) bind_failures_.Increment();
}

void SchedulerMetrics::Eviction(bool blocked) {
  if (blocked) {
    evictions_blocked_.Increment();
  } else {
    evictions_.Increment();
  }
}

void SchedulerMetrics::SetPendingPods(int64_t count) {
  pending_pods_.Set(static_cast<double>(count));
}

void SchedulerMetrics::SetLeader(bool leader) { is_leader_.Set(leader ? 1 : 0); }

std::string SchedulerMetrics::Text() const { return SerializeMetrics(registry_); }

}  // namespace quotient::telemetry
