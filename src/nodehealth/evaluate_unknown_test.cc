// When the agent cannot observe, conditions say Unknown, never False (section 2.6): NVML that
// failed to start or hangs, a CPU node without NVML, an unreadable kernel log.
#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::Agent;
using testing::ConditionOf;
using testing::HealthyNode;

NodeObservation NvmlFailed(NvmlState state, std::string call, std::string detail) {
  NodeObservation node;
  node.expected_gpu_count = 2;
  node.nvml = NvmlStatus{state, std::move(call), std::move(detail)};
  return node;
}

TEST(NodeHealthEvaluateUnknownTest, NvmlThatFailsToStartIsUnresponsiveAndGpuConditionsUnknown) {
  Agent agent;
  const Evaluation& e =
      agent.Poll(NvmlFailed(NvmlState::kInitFailed, "nvmlInit_v2", "Driver Not Loaded"));
  const NodeCondition& driver = ConditionOf(e, ConditionType::kGpuDriverUnresponsive);
  EXPECT_EQ(driver.status, ConditionStatus::kTrue);
  EXPECT_EQ(driver.reason, "NvmlInitFailed");
  EXPECT_EQ(driver.message,
            "[node] NVML did not start: nvmlInit_v2: Driver Not Loaded - RecommendedAction: NONE");
  for (ConditionType type : {ConditionType::kGpuLost, ConditionType::kGpuMemoryDegraded,
                             ConditionType::kGpuNvlinkDegraded, ConditionType::kGpuPcieDegraded}) {
    const NodeCondition& c = ConditionOf(e, type);
    EXPECT_EQ(c.status, ConditionStatus::kUnknown) << ConditionTypeName(type);
    EXPECT_EQ(c.reason, "NvmlUnavailable");
    EXPECT_EQ(c.message, "[node] NVML unavailable (nvmlInit_v2: Driver Not Loaded)");
  }
  // The kernel log still reports XIDs and recovery hints: those stay observable.
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).status, ConditionStatus::kFalse);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuRemediationRequired).status, ConditionStatus::kFalse);
  // No automatic action on Unknown alone: the driver signal's ladder is empty.
  ASSERT_EQ(e.faults.size(), 1u);
  EXPECT_TRUE(e.faults[0].ladder.empty());
}

TEST(NodeHealthEvaluateUnknownTest, AHungNvmlCallIsATimeout) {
  Agent agent;
  const NodeCondition& c =
      ConditionOf(agent.Poll(NvmlFailed(NvmlState::kTimedOut, "nvmlDeviceGetRemappedRows",
                                        "no answer in 10 s")),
                  ConditionType::kGpuDriverUnresponsive);
  EXPECT_EQ(c.reason, "NvmlTimeout");
  EXPECT_EQ(c.message,
            "[node] NVML call did not return in time: nvmlDeviceGetRemappedRows: no answer in 10 "
            "s - RecommendedAction: NONE");
}

TEST(NodeHealthEvaluateUnknownTest, WithoutNvmlOrTheKernelLogXidsAreUnknownToo) {
  Agent agent;
  NodeObservation node = NvmlFailed(NvmlState::kTimedOut, "nvmlEventSetWait_v2", "hung");
  node.kernel_log_readable = false;
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).status, ConditionStatus::kUnknown);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuRemediationRequired).status,
            ConditionStatus::kUnknown);
}

TEST(NodeHealthEvaluateUnknownTest, ARaisedFaultStaysRaisedWhileNvmlCannotConfirmItsEnd) {
  Agent agent;
  NodeObservation sick = HealthyNode();
  sick.gpus[0].remapped_rows->pending = true;
  agent.Poll(sick);
  const NodeObservation blind = NvmlFailed(NvmlState::kTimedOut, "nvmlDeviceGetCount_v2", "hung");
  for (int i = 0; i < 5; ++i) agent.Poll(blind);
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuMemoryDegraded).status,
            ConditionStatus::kTrue);
  // NVML back and healthy: the usual three polls clear it.
  agent.Poll(HealthyNode());
  agent.Poll(HealthyNode());
  EXPECT_EQ(ConditionOf(agent.Poll(HealthyNode()), ConditionType::kGpuMemoryDegraded).status,
            ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateUnknownTest, GpuHealthIsUnknownWhileNvmlIsDown) {
  Agent agent;
  agent.Poll(HealthyNode());
  const Evaluation& e = agent.Poll(NvmlFailed(NvmlState::kTimedOut, "nvmlDeviceGetCount_v2", ""));
  ASSERT_EQ(e.gpus.size(), 2u);
  EXPECT_EQ(e.gpus[0].state, GpuHealthState::kUnknown);
}

TEST(NodeHealthEvaluateUnknownTest, ACpuNodeWithoutNvmlReportsNoGpus) {
  Agent agent;
  NodeObservation node;
  node.nvml = NvmlStatus{NvmlState::kNotInstalled, "dlopen", "libnvidia-ml.so.1 not found"};
  const Evaluation& e = agent.Poll(node);
  for (const NodeCondition& c : e.conditions) {
    EXPECT_EQ(c.status, ConditionStatus::kFalse) << ConditionTypeName(c.type);
    if (c.type != ConditionType::kIbPortDegraded) {
      EXPECT_EQ(c.reason, "NoGpus");
    }
  }
  EXPECT_TRUE(e.faults.empty());
}

TEST(NodeHealthEvaluateUnknownTest, MissingNvmlWhereGpusAreExpectedIsAFailedStart) {
  Agent agent;
  NodeObservation node = NvmlFailed(NvmlState::kNotInstalled, "dlopen", "not found");
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuDriverUnresponsive);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "NvmlInitFailed");
}

TEST(NodeHealthEvaluateUnknownTest, TransitionTimesChangeOnlyWithTheStatus) {
  Agent agent;
  agent.Poll(HealthyNode());
  const int64_t start = agent.now_s();
  agent.Poll(HealthyNode());
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuLost).last_transition_s, start);
  agent.Poll(NvmlFailed(NvmlState::kTimedOut, "nvmlDeviceGetCount_v2", "hung"));
  const int64_t unknown_at = agent.now_s();
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuLost).last_transition_s, unknown_at);
  agent.Poll(NvmlFailed(NvmlState::kTimedOut, "nvmlDeviceGetCount_v2", "hung"));
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuLost).last_transition_s, unknown_at);
}

}  // namespace
}  // namespace quotient::nodehealth
