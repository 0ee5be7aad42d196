// Faults NVML reports become the right conditions (section 2.6): memory, NVLink, PCIe, lost
// GPUs and the driver's recovery hint; confirm rules and hysteresis as the policy says.
#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::Agent;
using testing::ConditionOf;
using testing::HealthyNode;

TEST(NodeHealthEvaluateGpuTest, AHealthyNodeReportsEveryConditionFalseWithItsHealthyReason) {
  Agent agent;
  const Evaluation& e = agent.Poll(HealthyNode());
  ASSERT_EQ(e.conditions.size(), 8u);
  const char* reasons[] = {"NoFatalXid",     "AllGpusPresent",       "GpuMemoryHealthy",
                           "NvlinkHealthy",  "PcieHealthy",          "IbPortsHealthy",
                           "NvmlResponsive", "NoRemediationRequired"};
  for (size_t i = 0; i < e.conditions.size(); ++i) {
    EXPECT_EQ(e.conditions[i].type, kAllConditionTypes[i]);
    EXPECT_EQ(e.conditions[i].status, ConditionStatus::kFalse);
    EXPECT_EQ(e.conditions[i].reason, reasons[i]);
  }
  EXPECT_TRUE(e.faults.empty());
  EXPECT_TRUE(e.events.empty());
  ASSERT_EQ(e.gpus.size(), 2u);
  EXPECT_EQ(e.gpus[1].uuid, "GPU-0001");
  EXPECT_EQ(e.gpus[1].bdf, "0000:01:00");
  EXPECT_EQ(e.gpus[1].state, GpuHealthState::kHealthy);
}

TEST(NodeHealthEvaluateGpuTest, APendingRowRemapMarksTheGpuAndAsksForAResetAtTheNextDrain) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[1].remapped_rows->pending = true;
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuMemoryDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);  // immediate
  EXPECT_EQ(c.reason, "RowRemapPending");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0001 bdf=0000:01:00] rows wait for a GPU reset to be remapped - "
            "RecommendedAction: GPU_RESET");
  ASSERT_EQ(e.faults.size(), 1u);
  EXPECT_EQ(e.faults[0].scope, Scope::kGpu);  // the GPU, not the node
  EXPECT_EQ(e.faults[0].signal, Signal::kRemapPending);
  EXPECT_EQ(e.gpus[0].state, GpuHealthState::kHealthy);
  EXPECT_EQ(e.gpus[1].state, GpuHealthState::kUnhealthy);
  EXPECT_EQ(e.gpus[1].reasons, std::vector<std::string>{"RowRemapPending"});
}

TEST(NodeHealthEvaluateGpuTest, RemapFailureAndUncorrectableEccAreMemoryFaultsForAReset) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[0].remapped_rows->failure = true;
  node.gpus[1].ecc.volatile_uncorrected = 2;
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuMemoryDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  // Both raised at the same poll: listed by subject, the first one's reason.
  EXPECT_EQ(c.reason, "RowRemapFailure");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0000 bdf=0000:00:00] row remapping failed: the memory bank has no spare "
            "rows left - RecommendedAction: GPU_RESET; [gpu=GPU-0001 bdf=0000:01:00] 2 "
            "uncorrectable ECC errors since the driver loaded - RecommendedAction: GPU_RESET");
}

TEST(NodeHealthEvaluateGpuTest, PendingRetiredPagesAreAMemoryFault) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].retired_pages = RetiredPages{3, 1, true};
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuMemoryDegraded).reason,
            "RetiredPagesPending");
}

TEST(NodeHealthEvaluateGpuTest, AFaultClearsOnlyAfterThreeHealthyPolls) {
  Agent agent;
  NodeObservation sick = HealthyNode();
  sick.gpus[0].remapped_rows->pending = true;
  agent.Poll(sick);
  for (int healthy = 1; healthy <= 2; ++healthy) {
    EXPECT_EQ(ConditionOf(agent.Poll(HealthyNode()), ConditionType::kGpuMemoryDegraded).status,
              ConditionStatus::kTrue)
        << "after " << healthy << " healthy polls";
  }
  const NodeCondition& cleared =
      ConditionOf(agent.Poll(HealthyNode()), ConditionType::kGpuMemoryDegraded);
  EXPECT_EQ(cleared.status, ConditionStatus::kFalse);
  EXPECT_EQ(cleared.last_transition_s, agent.now_s());
}

TEST(NodeHealthEvaluateGpuTest, AFaultSeenAgainRestartsTheHealthyCount) {
  Agent agent;
  NodeObservation sick = HealthyNode();
  sick.gpus[0].remapped_rows->pending = true;
  agent.Poll(sick);
  agent.Poll(HealthyNode());
  agent.Poll(HealthyNode());
  agent.Poll(sick);  // back before it cleared
  agent.Poll(HealthyNode());
  agent.Poll(HealthyNode());
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuMemoryDegraded).status,
            ConditionStatus::kTrue);
  EXPECT_EQ(ConditionOf(agent.Poll(HealthyNode()), ConditionType::kGpuMemoryDegraded).status,
            ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateGpuTest, ALostGpuIsGpuLostAndItsOtherReadingsAreNotTrusted) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[1].lost = true;
  node.gpus[1].remapped_rows->pending = true;  // garbage from a lost GPU
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& lost = ConditionOf(e, ConditionType::kGpuLost);
  EXPECT_EQ(lost.status, ConditionStatus::kTrue);
  EXPECT_EQ(lost.reason, "NvmlGpuIsLost");
  EXPECT_EQ(lost.message,
            "[gpu=GPU-0001 bdf=0000:01:00] NVML reports the GPU lost (GPU_IS_LOST) - "
            "RecommendedAction: POWER_CYCLE");
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuMemoryDegraded).status, ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateGpuTest, FewerGpusThanTheInventoryIsACountMismatch) {
  Agent agent;
  NodeObservation node = HealthyNode(2);
  node.expected_gpu_count = 3;
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuLost);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "GpuCountMismatch");
  EXPECT_EQ(c.message, "[node] NVML sees 2 GPUs, 3 expected - RecommendedAction: POWER_CYCLE");
}

TEST(NodeHealthEvaluateGpuTest, AGpuThatDisappearsWithoutAnInventoryIsMissing) {
  Agent agent;
  NodeObservation node = HealthyNode(2);
  node.expected_gpu_count.reset();
  agent.Poll(node);
  node.gpus.pop_back();
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuLost).message,
            "[node] NVML sees 1 GPUs, 2 expected; missing 0000:01:00 - RecommendedAction: "
            "POWER_CYCLE");
  ASSERT_EQ(e.gpus.size(), 2u);
  EXPECT_EQ(e.gpus[1].state, GpuHealthState::kUnhealthy);
  EXPECT_EQ(e.gpus[1].reasons, std::vector<std::string>{"Missing"});
}

TEST(NodeHealthEvaluateGpuTest, FewerActiveNvlinksThanExpectedIsLinkInactive) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.expected_nvlinks_per_gpu = 4;
  node.gpus[0].nvlinks[2].active = false;
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuNvlinkDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "LinkInactive");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0000 bdf=0000:00:00] 3 NVLinks active, 4 expected; inactive: 2 - "
            "RecommendedAction: GPU_RESET");
}

TEST(NodeHealthEvaluateGpuTest, WithoutAnExpectedCountALinkThatWentDownIsInactive) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].nvlinks[3].active = false;  // never up this boot: not connected, not a fault
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuNvlinkDegraded).status,
            ConditionStatus::kFalse);
  node.gpus[0].nvlinks[1].active = false;  // was up, went down
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuNvlinkDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.message,
            "[gpu=GPU-0000 bdf=0000:00:00] 2 NVLinks active; inactive: 1 - RecommendedAction: "
            "GPU_RESET");
}

TEST(NodeHealthEvaluateGpuTest, NvlinkReplayErrorsSustainedForThreeWindowsDegradeTheLink) {
  // Default: more than 100 replays per 300 s, 3 windows; polls every 150 s.
  Agent agent(DefaultPolicy(), 0, 150);
  NodeObservation node = HealthyNode(1);
  int64_t replays = 0;
  agent.Poll(node);
  std::vector<ConditionStatus> statuses;
  std::vector<size_t> events;
  for (int poll = 1; poll <= 6; ++poll) {
    replays += 200;  // every poll: 200 more, 400 per window
    node.gpus[0].nvlinks[0].replay = replays;
    const Evaluation& e = agent.Poll(node);
    statuses.push_back(ConditionOf(e, ConditionType::kGpuNvlinkDegraded).status);
    events.push_back(e.events.size());
  }
  // Windows open at t=0, 300, 600; the third is bad from t=600 (poll 4).
  const auto T = ConditionStatus::kTrue;
  const auto F = ConditionStatus::kFalse;
  EXPECT_EQ(statuses, (std::vector<ConditionStatus>{F, F, F, T, T, T}));
  // One Event per window turning bad: polls 1 (t=150), 2 (t=300) and 4 (t=600).
  EXPECT_EQ(events, (std::vector<size_t>{1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuNvlinkDegraded).message,
            "[gpu=GPU-0000 bdf=0000:00:00] NVLink replay errors over 100 per 300 s for 3 "
            "windows on links 0 - RecommendedAction: GPU_RESET");
}

TEST(NodeHealthEvaluateGpuTest, PcieWidthBelowMaxIsConfirmedOnTheSecondConsecutivePoll) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].pcie.current_width = 8;
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuPcieDegraded).status,
            ConditionStatus::kFalse);
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuPcieDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "WidthBelowMax");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0000 bdf=0000:00:00] PCIe link x8, maximum x16 - RecommendedAction: REBOOT");
}

TEST(NodeHealthEvaluateGpuTest, OneNarrowPollBetweenHealthyOnesIsNotConfirmed) {
  Agent agent;
  NodeObservation narrow = HealthyNode(1);
  narrow.gpus[0].pcie.current_width = 8;
  agent.Poll(narrow);
  agent.Poll(HealthyNode(1));
  EXPECT_EQ(ConditionOf(agent.Poll(narrow), ConditionType::kGpuPcieDegraded).status,
            ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateGpuTest, PcieGenerationBelowMaxCountsOnlyUnderLoad) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].pcie.current_gen = 1;  // an idle GPU saving power
  agent.Poll(node);
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuPcieDegraded).status,
            ConditionStatus::kFalse);
  node.gpus[0].pcie.under_load = true;
  agent.Poll(node);
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuPcieDegraded).reason,
            "GenBelowMaxUnderLoad");
}

TEST(NodeHealthEvaluateGpuTest, PcieReplaysOverTheLimitAreAnEventBeforeTheyAreACondition) {
  Agent agent(DefaultPolicy(), 0, 300);  // one poll per 300 s window
  NodeObservation node = HealthyNode(1);
  agent.Poll(node);
  node.gpus[0].pcie.replay = 500;
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuPcieDegraded).status, ConditionStatus::kFalse);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "PcieReplayRate");
  EXPECT_EQ(e.events[0].message, "[gpu=GPU-0000 bdf=0000:00:00] PCIe replays over 100 in a window");
}

TEST(NodeHealthEvaluateGpuTest, TheDriversRecoveryHintBecomesRemediationRequired) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[1].recovery_action = RecoveryAction::kGpuReset;
  const NodeCondition& reset =
      ConditionOf(agent.Poll(node), ConditionType::kGpuRemediationRequired);
  EXPECT_EQ(reset.status, ConditionStatus::kTrue);
  EXPECT_EQ(reset.reason, "ResetRequired");
  EXPECT_EQ(reset.message,
            "[gpu=GPU-0001 bdf=0000:01:00] the driver asks for GPU_RESET - RecommendedAction: "
            "GPU_RESET");
  node.gpus[1].recovery_action = RecoveryAction::kNodeReboot;
  const NodeCondition& reboot =
      ConditionOf(agent.Poll(node), ConditionType::kGpuRemediationRequired);
  EXPECT_EQ(reboot.reason, "RebootRequired");
  EXPECT_EQ(reboot.message,
            "[gpu=GPU-0001 bdf=0000:01:00] the driver asks for REBOOT - RecommendedAction: "
            "REBOOT");
  node.gpus[1].recovery_action = RecoveryAction::kDrainP2p;
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuRemediationRequired).reason,
            "DrainP2P");
}

TEST(NodeHealthEvaluateGpuTest, ABurstOfCorrectedEccErrorsIsAnEventOnly) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  agent.Poll(node);
  node.gpus[0].ecc.volatile_corrected = 150;  // more than 100 within the hour
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuMemoryDegraded).status, ConditionStatus::kFalse);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "SingleBitEccBurst");
  EXPECT_EQ(e.events[0].message,
            "[gpu=GPU-0000 bdf=0000:00:00] more than 100 corrected ECC errors within 3600 s");
}

TEST(NodeHealthEvaluateGpuTest, ReadingsTheDriverCannotGiveAreNotJudged) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].remapped_rows.reset();           // pre-Ampere
  node.gpus[0].ecc = EccCounts{};               // ECC off
  node.gpus[0].retired_pages = RetiredPages{};  // not supported
  node.gpus[0].nvlinks.clear();                 // a PCIe card
  node.gpus[0].pcie = PcieReading{};            // nothing answered
  node.gpus[0].pcie.current_width = 8;          // half a reading proves nothing
  node.gpus[0].recovery_action.reset();         // an older driver
  agent.Poll(node);
  const Evaluation& e = agent.Poll(node);
  for (const NodeCondition& c : e.conditions) {
    EXPECT_EQ(c.status, ConditionStatus::kFalse) << ConditionTypeName(c.type);
  }
  EXPECT_EQ(e.gpus[0].state, GpuHealthState::kHealthy);
}

TEST(NodeHealthEvaluateGpuTest, APolicyOverrideChangesTheHysteresis) {
  Policy policy = DefaultPolicy();
  policy.healthy_polls_to_clear = 1;
  Agent agent(policy);
  NodeObservation sick = HealthyNode();
  sick.gpus[0].remapped_rows->pending = true;
  agent.Poll(sick);
  EXPECT_EQ(ConditionOf(agent.Poll(HealthyNode()), ConditionType::kGpuMemoryDegraded).status,
            ConditionStatus::kFalse);
}

}  // namespace
}  // namespace quotient::nodehealth
