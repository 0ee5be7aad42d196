#include "telemetry/scheduler_metrics.h"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>

namespace quotient::telemetry {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// The value of the sample `series` (name plus labels exactly as exported) in `text`, if any.
std::optional<double> Sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

TEST(SchedulerMetrics, CountersUseKaiNamesUnderTheDefaultPrefix) {
  SchedulerMetrics metrics;
  for (int i = 0; i < 3; ++i) metrics.PreemptionAttempt();
  metrics.PodGroupScheduled("allocate");
  metrics.PodGroupScheduled("allocate");
  metrics.PodGroupActedOn("reclaim");
  metrics.PodEvicted("train-1", "uid-1", "default", "reclaim");

  std::string text = metrics.Text();
  EXPECT_NE(text.find("\nquotient_total_preemption_attempts 3\n"), std::string::npos) << text;
  EXPECT_EQ(Sample(text, "quotient_podgroups_scheduled_by_action{action=\"allocate\"}"), 2);
  EXPECT_EQ(Sample(text, "quotient_podgroups_acted_on_by_action{action=\"reclaim\"}"), 1);
  // prometheus-cpp writes labels in name order.
  EXPECT_EQ(Sample(text,
                   "quotient_pod_group_evicted_pods_total{action=\"reclaim\",nodepool=\"default\","
                   "podgroup=\"train-1\",uid=\"uid-1\"}"),
            1);
}

TEST(SchedulerMetrics, KaiPrefixGivesKaiNames) {
  SchedulerMetrics metrics("kai");
  metrics.PreemptionAttempt();
  std::string text = metrics.Text();
  EXPECT_EQ(Sample(text, "kai_total_preemption_attempts"), 1);
  EXPECT_EQ(Sample(text, "kai_e2e_scheduling_latency_milliseconds"), 0);
  EXPECT_EQ(text.find("quotient_"), std::string::npos);
}

TEST(SchedulerMetrics, QueueQuantitiesAreConvertedFromFixedPointToKaiUnits) {
  SchedulerMetrics metrics;
  QueueMetrics queue;
  queue.name = "team-a";
  queue.fair_share_cpu_millicores = 1500;         // 1.5 cores
  queue.fair_share_memory_bytes = 2'500'000'000;  // 2.5 GB (decimal, KAI's MemoryToGB)
  queue.fair_share_gpu_milli = 2500;              // 2.5 GPUs
  queue.usage_cpu_millicores = 250;               // 0.25 cores
  queue.usage_memory_bytes = 500'000'000;         // 0.5 GB
  queue.usage_gpu_milli = 1000;                   // 1 GPU
  metrics.SetQueues({queue});

  std::string text = metrics.Text();
  const std::string labels = "{queue_name=\"team-a\"}";
  EXPECT_EQ(Sample(text, "quotient_queue_fair_share_cpu_cores" + labels), 1.5);
  EXPECT_EQ(Sample(text, "quotient_queue_fair_share_memory_gb" + labels), 2.5);
  EXPECT_EQ(Sample(text, "quotient_queue_fair_share_gpu" + labels), 2.5);
  EXPECT_EQ(Sample(text, "quotient_queue_cpu_usage" + labels), 0.25);
  EXPECT_EQ(Sample(text, "quotient_queue_memory_usage" + labels), 0.5);
  EXPECT_EQ(Sample(text, "quotient_queue_gpu_usage" + labels), 1);
}

TEST(SchedulerMetrics, QueueControllerSeriesGiveQuotaAsInTheSpecAndTheAllocation) {
  SchedulerMetrics metrics;
  QueueMetrics queue;
  queue.name = "team-a";
  queue.deserved_gpu_milli = 2500;               // 2.5 GPUs
  queue.deserved_cpu_millicores = std::nullopt;  // unlimited
  queue.deserved_memory_bytes = 4'000'000'000;   // 4 GB
  queue.allocated_gpu_milli = 3000;
  queue.allocated_cpu_millicores = 1500;
  queue.allocated_memory_bytes = 2'000'000'000;
  metrics.SetQueues({queue});
  const std::string text = metrics.Text();
  const std::string labels = "{queue_name=\"team-a\"}";
  EXPECT_EQ(Sample(text, "quotient_queue_info" + labels), 1);
  EXPECT_EQ(Sample(text, "quotient_queue_deserved_gpus" + labels), 2.5);
  EXPECT_EQ(Sample(text, "quotient_queue_quota_cpu_cores" + labels), -1);
  EXPECT_EQ(Sample(text, "quotient_queue_quota_memory_bytes" + labels), 4e9);
  EXPECT_EQ(Sample(text, "quotient_queue_allocated_gpus" + labels), 3);
  EXPECT_EQ(Sample(text, "quotient_queue_allocated_cpu_cores" + labels), 1.5);
  EXPECT_EQ(Sample(text, "quotient_queue_allocated_memory_bytes" + labels), 2e9);
  metrics.SetQueues({});
  EXPECT_EQ(metrics.Text().find("queue_name="), std::string::npos);
}

TEST(SchedulerMetrics, AQueueMissingFromTheNextSetLosesItsSeries) {
  SchedulerMetrics metrics;
  QueueMetrics a{.name = "a", .fair_share_gpu_milli = 1000};
  QueueMetrics b{.name = "b", .fair_share_gpu_milli = 2000};
  metrics.SetQueues({a, b});
  EXPECT_EQ(Sample(metrics.Text(), "quotient_queue_fair_share_gpu{queue_name=\"a\"}"), 1);

  b.fair_share_gpu_milli = 3000;
  metrics.SetQueues({b});
  std::string text = metrics.Text();
  EXPECT_EQ(text.find("queue_name=\"a\""), std::string::npos) << text;
  EXPECT_EQ(Sample(text, "quotient_queue_fair_share_gpu{queue_name=\"b\"}"), 3);

  metrics.SetQueues({});
  EXPECT_EQ(metrics.Text().find("queue_name="), std::string::npos);
}

TEST(SchedulerMetrics, TaskLatencyBucketsDoubleFrom5To2560Milliseconds) {
  prometheus::Histogram::BucketBoundaries buckets = ExponentialBuckets(5, 2, 10);
  ASSERT_EQ(buckets.size(), 10u);
  EXPECT_EQ(buckets.front(), 5);
  EXPECT_EQ(buckets.back(), 2560);  // 5 * 2^9

  SchedulerMetrics metrics;
  for (int ms : {3, 5, 7, 3000}) metrics.RecordTaskSchedulingLatency(milliseconds(ms));
  std::string text = metrics.Text();
  const std::string name = "quotient_task_scheduling_latency_milliseconds";
  // Buckets are cumulative and inclusive: le=5 holds 3 and 5, le=10 adds 7, only +Inf has 3000.
  EXPECT_EQ(Sample(text, name + "_bucket{le=\"5\"}"), 2);
  EXPECT_EQ(Sample(text, name + "_bucket{le=\"10\"}"), 3);
  EXPECT_EQ(Sample(text, name + "_bucket{le=\"2560\"}"), 3);
  EXPECT_EQ(Sample(text, name + "_bucket{le=\"+Inf\"}"), 4);
  EXPECT_EQ(Sample(text, name + "_count"), 4);
  EXPECT_EQ(Sample(text, name + "_sum"), 3 + 5 + 7 + 3000);

  metrics.RecordBindLatency(milliseconds(40));
  EXPECT_EQ(Sample(metrics.Text(), "quotient_task_bind_latency_milliseconds_bucket{le=\"20\"}"), 0);
  EXPECT_EQ(Sample(metrics.Text(), "quotient_task_bind_latency_milliseconds_bucket{le=\"40\"}"), 1);
}

TEST(SchedulerMetrics, CycleGaugesHoldWholeMillisecondsAndTheHistogramSeconds) {
  SchedulerMetrics metrics;
  metrics.RecordCycle(microseconds(1'234'567), microseconds(20'999), microseconds(1'000));
  std::string text = metrics.Text();
  EXPECT_EQ(Sample(text, "quotient_e2e_scheduling_latency_milliseconds"), 1234);  // truncated
  EXPECT_EQ(Sample(text, "quotient_open_session_latency_milliseconds"), 20);
  EXPECT_EQ(Sample(text, "quotient_close_session_latency_milliseconds"), 1);
  EXPECT_EQ(Sample(text, "quotient_cycle_duration_seconds_count"), 1);
  EXPECT_DOUBLE_EQ(*Sample(text, "quotient_cycle_duration_seconds_sum"), 1.234567);
  EXPECT_EQ(Sample(text, "quotient_cycle_duration_seconds_bucket{le=\"1\"}"), 0);
  EXPECT_EQ(Sample(text, "quotient_cycle_duration_seconds_bucket{le=\"2.5\"}"), 1);

  metrics.RecordAction("allocate", milliseconds(20));
  metrics.RecordAction("allocate", milliseconds(30));
  text = metrics.Text();
  EXPECT_EQ(Sample(text, "quotient_action_scheduling_latency_milliseconds{action=\"allocate\"}"),
            30);  // a gauge: the last action's duration
  EXPECT_EQ(Sample(text, "quotient_action_duration_seconds_count{action=\"allocate\"}"), 2);
  EXPECT_EQ(
      Sample(text, "quotient_action_duration_seconds_bucket{action=\"allocate\",le=\"0.025\"}"), 1);
}

TEST(SchedulerMetrics, QuotientAdditionsCountBindsEvictionsAndState) {
  SchedulerMetrics metrics;
  metrics.Bind(true);
  metrics.Bind(false);
  metrics.Bind(true);
  metrics.Eviction(false);
  metrics.Eviction(false);
  metrics.Eviction(true);
  metrics.SetPendingPods(7);
  metrics.SetLeader(true);
  std::string text = metrics.Text();
  EXPECT_EQ(Sample(text, "quotient_binds_total"), 3);
  EXPECT_EQ(Sample(text, "quotient_bind_failures_total"), 1);
  EXPECT_EQ(Sample(text, "quotient_evictions_total"), 2);
  EXPECT_EQ(Sample(text, "quotient_evictions_blocked_total"), 1);
  EXPECT_EQ(Sample(text, "quotient_pending_pods"), 7);
  EXPECT_EQ(Sample(text, "quotient_is_leader"), 1);
  metrics.SetLeader(false);
  EXPECT_EQ(Sample(metrics.Text(), "quotient_is_leader"), 0);
}

TEST(ValidateMetricsPrefix, AcceptsMetricNameStartsOnly) {
  for (const char* good : {"quotient", "kai", "", "_x", "Team_2"}) {
    EXPECT_TRUE(ValidateMetricsPrefix(good).ok()) << good;
  }
  for (const char* bad : {"9lives", "kai-scheduler", "a:b", "a b"}) {
    Status status = ValidateMetricsPrefix(bad);
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.message().find(bad), std::string::npos) << status.message();
  }
}

TEST(SchedulerMetrics, EmptyPrefixGivesBareNames) {
  SchedulerMetrics metrics("");
  EXPECT_EQ(Sample(metrics.Text(), "total_preemption_attempts"), 0);
}

}  // namespace
}  // namespace quotient::telemetry
