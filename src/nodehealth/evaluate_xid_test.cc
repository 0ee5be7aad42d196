// XIDs (from NVML events and the kernel log) and the kernel log's other fault lines become the
// conditions and Events the catalogue and the policy say (sections 2.2 and 2.6).
#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::Agent;
using testing::ConditionOf;
using testing::HealthyNode;

KernelEvent Xid(const std::string& bdf, int code, std::string text = "") {
  KernelEvent e;
  e.kind = KernelEventKind::kXid;
  e.bdf = bdf;
  e.code = code;
  e.text = std::move(text);
  return e;
}

TEST(NodeHealthEvaluateXidTest, Xid79IsFatalAndNamesTheGpuAddressCodeAndAction) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[1].xids = {79};
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuXidFatal);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "Xid79");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0001 bdf=0000:01:00 code=79] GPU has fallen off the bus - "
            "RecommendedAction: POWER_CYCLE");
  ASSERT_EQ(e.faults.size(), 1u);
  EXPECT_EQ(e.faults[0].scope, Scope::kNode);
  EXPECT_EQ(e.faults[0].ladder, (std::vector<std::string>{"power-cycle", "escalate"}));
  EXPECT_EQ(e.faults[0].code, 79);
  EXPECT_EQ(e.gpus[1].reasons, std::vector<std::string>{"Xid79"});
}

TEST(NodeHealthEvaluateXidTest, AFatalXidSticksUntilAValidationPasses) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[0].xids = {119};
  agent.Poll(node);
  for (int i = 0; i < 10; ++i) agent.Poll(HealthyNode());  // far past the hysteresis
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuXidFatal).status, ConditionStatus::kTrue);
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kGpuXidFatal).message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=119] GSP RPC timeout - RecommendedAction: "
            "GPU_RESET");
  NodeObservation validated = HealthyNode();
  validated.validation_passed_at_s = agent.now_s();
  const NodeCondition& c = ConditionOf(agent.Poll(validated), ConditionType::kGpuXidFatal);
  EXPECT_EQ(c.status, ConditionStatus::kFalse);
  EXPECT_EQ(c.reason, "NoFatalXid");
  // The same validation seen again clears nothing new: a later XID sticks again.
  validated.gpus[0].xids = {119};
  agent.Poll(validated);
  validated.gpus[0].xids.clear();
  EXPECT_EQ(ConditionOf(agent.Poll(validated), ConditionType::kGpuXidFatal).status,
            ConditionStatus::kTrue);
}

TEST(NodeHealthEvaluateXidTest, Xid48IsReadWithItsDramOrSramQualifier) {
  Agent sram_agent;
  NodeObservation sram = HealthyNode(1);
  sram.gpus[0].xids = {48, 172};
  const Evaluation& e = sram_agent.Poll(sram);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuXidFatal);
  EXPECT_EQ(c.reason, "Xid48Sram");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=48] Double-bit ECC error (uncorrectable) - "
            "RecommendedAction: ESCALATE");
  EXPECT_EQ(e.faults[0].signal, Signal::kHardwareRepair);
  EXPECT_TRUE(e.events.empty());  // the qualifier is consumed, not an Event of its own

  Agent dram_agent;
  NodeObservation dram = HealthyNode(1);
  dram.gpus[0].xids = {48, 171};
  const NodeCondition& d = ConditionOf(dram_agent.Poll(dram), ConditionType::kGpuXidFatal);
  EXPECT_EQ(d.reason, "Xid48Dram");
  EXPECT_EQ(d.message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=48] Double-bit ECC error (uncorrectable) - "
            "RecommendedAction: GPU_RESET");
}

TEST(NodeHealthEvaluateXidTest, ApplicationXidsAreEventsNotConditions) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].xids = {13, 94};
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).status, ConditionStatus::kFalse);
  ASSERT_EQ(e.events.size(), 2u);
  EXPECT_EQ(e.events[0].reason, "Xid13");
  EXPECT_EQ(e.events[0].message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=13] Graphics engine exception - "
            "RecommendedAction: NONE");
  EXPECT_EQ(e.events[1].reason, "Xid94");
  EXPECT_EQ(e.events[1].message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=94] Contained memory error - RecommendedAction: "
            "RESTART_APP");
  EXPECT_EQ(e.gpus[0].state, GpuHealthState::kHealthy);
}

TEST(NodeHealthEvaluateXidTest, TheSameApplicationXidThreeTimesOnOneGpuIsFlagged) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].xids = {31};
  agent.Poll(node);
  agent.Poll(node);
  const Evaluation& third = agent.Poll(node);
  ASSERT_EQ(third.events.size(), 2u);
  EXPECT_EQ(third.events[1].reason, "XidRepeated");
  EXPECT_EQ(third.events[1].message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=31] XID 31 seen 3 times within 86400 s on this "
            "GPU: suspect the GPU rather than the applications");
}

TEST(NodeHealthEvaluateXidTest, AnXidFromBothSourcesIsOneFault) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.gpus[0].xids = {95};
  node.kernel_events = {Xid("0000:00:00", 95, "pid=7, Uncontained memory error")};
  const Evaluation& e = agent.Poll(node);
  ASSERT_EQ(e.faults.size(), 1u);
  EXPECT_EQ(e.faults[0].reason, "Xid95");
}

TEST(NodeHealthEvaluateXidTest, AKernelLogXidIsMatchedToItsGpuByAddress) {
  Agent agent;
  NodeObservation node = HealthyNode();
  node.kernel_events = {Xid("0000:01:00", 74)};
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kGpuXidFatal);
  EXPECT_EQ(c.message,
            "[gpu=GPU-0001 bdf=0000:01:00 code=74] NVLink error - RecommendedAction: GPU_RESET");
}

TEST(NodeHealthEvaluateXidTest, NvlinkFiveXidsFollowTheirStatedFatality) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  KernelEvent non_fatal = Xid("0000:00:00", 145);
  non_fatal.fatal = false;
  node.kernel_events = {non_fatal};
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).status, ConditionStatus::kFalse);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "Xid145");
  KernelEvent fatal = Xid("0000:00:00", 149);
  fatal.fatal = true;
  node.kernel_events = {fatal};
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuXidFatal).reason, "Xid149");
}

TEST(NodeHealthEvaluateXidTest, AnUnknownXidIsFatalAndCallsForAPerson) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].xids = {999};
  const Evaluation& e = agent.Poll(node);
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=999] XID 999 (not in the catalogue) - "
            "RecommendedAction: ESCALATE");
  EXPECT_EQ(e.faults[0].signal, Signal::kXidUnknown);
}

TEST(NodeHealthEvaluateXidTest, ThePolicyCanPromoteOrDemoteAnXid) {
  Policy policy = DefaultPolicy();
  policy.xid_signals[13] = Signal::kGpuFatal;  // this fleet's XID 13s are hardware
  policy.xid_signals[119] = std::nullopt;      // and its GSP timeouts are known noise
  Agent agent(policy);
  NodeObservation node = HealthyNode(1);
  node.gpus[0].xids = {13, 119};
  const Evaluation& e = agent.Poll(node);
  ASSERT_EQ(e.faults.size(), 1u);
  EXPECT_EQ(e.faults[0].reason, "Xid13");
  EXPECT_EQ(e.faults[0].message,
            "[gpu=GPU-0000 bdf=0000:00:00 code=13] Graphics engine exception - "
            "RecommendedAction: GPU_RESET");
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "Xid119");
}

TEST(NodeHealthEvaluateXidTest, Xid154FromTheKernelLogRaisesAndLowersRemediationRequired) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.gpus[0].recovery_action.reset();  // this driver lacks the field
  KernelEvent reset = Xid("0000:00:00", 154);
  reset.recovery_action = RecoveryAction::kGpuReset;
  node.kernel_events = {reset};
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuRemediationRequired);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "ResetRequired");
  EXPECT_EQ(ConditionOf(e, ConditionType::kGpuXidFatal).status, ConditionStatus::kFalse);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "Xid154");
  // No new line: the hint stands.
  node.kernel_events.clear();
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuRemediationRequired).status,
            ConditionStatus::kTrue);
  // "changed ... to 0x0 (None)": gone after the hysteresis.
  KernelEvent none = Xid("0000:00:00", 154);
  none.recovery_action = RecoveryAction::kNone;
  node.kernel_events = {none};
  agent.Poll(node);
  node.kernel_events.clear();
  agent.Poll(node);
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kGpuRemediationRequired).status,
            ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateXidTest, FallenOffTheBusInTheKernelLogIsGpuLostAndSticks) {
  Agent agent;
  NodeObservation node = HealthyNode();
  KernelEvent fell;
  fell.kind = KernelEventKind::kFallenOffBus;
  fell.bdf = "0000:01:00";
  node.kernel_events = {fell};
  agent.Poll(node);
  for (int i = 0; i < 5; ++i) agent.Poll(HealthyNode());
  const NodeCondition& c = ConditionOf(agent.last(), ConditionType::kGpuLost);
  EXPECT_EQ(c.status, ConditionStatus::kTrue);
  EXPECT_EQ(c.reason, "FallenOffBus");
  EXPECT_EQ(c.message,
            "[gpu=GPU-0001 bdf=0000:01:00] GPU has fallen off the bus (kernel log) - "
            "RecommendedAction: POWER_CYCLE");
}

TEST(NodeHealthEvaluateXidTest, FatalSxidsDegradeNvlinkAndOthersAreEvents) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  KernelEvent fatal;
  fatal.kind = KernelEventKind::kSxid;
  fatal.bdf = "0000:c3:00";
  fatal.code = 24007;
  fatal.fatal = true;
  fatal.text = "Fatal, Link 28 sourcetrack timeout error (First)";
  KernelEvent other = fatal;
  other.code = 28006;
  other.fatal = false;
  other.text = "Non-fatal, Link 46 MC TS crumbstore MCTO (First)";
  node.kernel_events = {fatal, other};
  const Evaluation& e = agent.Poll(node);
  const NodeCondition& c = ConditionOf(e, ConditionType::kGpuNvlinkDegraded);
  EXPECT_EQ(c.reason, "SxidFatal");
  EXPECT_EQ(c.message,
            "[nvswitch=0000:c3:00 code=24007] NVSwitch fatal error: Fatal, Link 28 sourcetrack "
            "timeout error (First) - RecommendedAction: GPU_RESET");
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "Sxid28006");
}

TEST(NodeHealthEvaluateXidTest, AFatalNicLineDegradesInfinibandUntilTheHysteresisPasses) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  KernelEvent nic;
  nic.kind = KernelEventKind::kNicFatal;
  nic.bdf = "0000:17:00";
  nic.text = "mlx5_core 0000:17:00.0: unrecoverable hardware error";
  node.kernel_events = {nic};
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.reason, "NicFatal");
  EXPECT_EQ(c.message,
            "[nic=0000:17:00] mlx5_core 0000:17:00.0: unrecoverable hardware error - "
            "RecommendedAction: DRIVER_RELOAD");
  for (int i = 0; i < 3; ++i) agent.Poll(HealthyNode(1));
  EXPECT_EQ(ConditionOf(agent.last(), ConditionType::kIbPortDegraded).status,
            ConditionStatus::kFalse);
}

TEST(NodeHealthEvaluateXidTest, AKernelLogGapIsAnEvent) {
  Agent agent;
  NodeObservation node = HealthyNode(1);
  node.kernel_log_lost_records = 12;
  const Evaluation& e = agent.Poll(node);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_EQ(e.events[0].reason, "KernelLogGap");
  EXPECT_EQ(e.events[0].message,
            "[node] 12 kernel log records were overwritten before they were read; XIDs among "
            "them were missed");
}

}  // namespace
}  // namespace quotient::nodehealth
