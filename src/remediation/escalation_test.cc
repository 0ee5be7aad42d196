// The ways an incident ends with a person: the ladder runs out, the validation fails, a fault
// shows during the hold-down, the drain does not finish in time.
#include <gtest/gtest.h>

#include "remediation/fleet_builder.h"

namespace quotient::remediation {
namespace {

using std::chrono::minutes;
using testing::At;
using testing::FakeCluster;
using testing::Lines;
using testing::Only;
using V = std::vector<std::string>;

constexpr const char* kDbeMessage = "[gpu=GPU-7 bdf=0000:3b:00.0 code=48] volatile DBE count 3";

// node-a with an uncorrectable ECC error (GpuXidFatal: gpu-reset, then reboot), reconciled until
// its first step runs at At(0).
FakeCluster RemediatingNode() {
  FakeCluster c;
  c.AddNode(testing::MakeNode("node-a"));
  c.Node("node-a").conditions = {
      {"GpuXidFatal", ConditionStatus::kTrue, "Xid48Dram", kDbeMessage, At(-minutes(1))}};
  c.Reconcile(At());  // Suspect -> Cordoned
  c.Reconcile(At());  // Draining
  c.Reconcile(At());  // no pods: gpu-reset #1
  EXPECT_EQ(c.Node("node-a").record.state, State::kRemediating);
  return c;
}

// ... and on until the validation pod runs (started at At(5m)).
FakeCluster ValidatingNode() {
  FakeCluster c = RemediatingNode();
  c.FinishStep("node-a", StepStatus::kSucceeded);
  c.ClearFault("node-a", "GpuXidFatal", At(minutes(4)));
  c.Reconcile(At(minutes(5)));
  EXPECT_EQ(c.Node("node-a").record.state, State::kValidating);
  return c;
}

TEST(Escalation, LadderExhaustedEscalatesWithTheEvidenceCapturedBeforeAnyReset) {
  FakeCluster c = RemediatingNode();
  // The reset wipes the volatile counter the agent's message quoted.
  c.Node("node-a").conditions[0].message = "[gpu=GPU-7 code=48] volatile DBE count 0";
  c.FinishStep("node-a", StepStatus::kFailed, "nvidia-smi -r: GPU busy");
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(2)))),
            (V{"Warning node-a RemediationStepFailed", "StartStep node-a reboot #2",
               "Event node-a RemediationStep", "SetRecord node-a remediating"}));
  c.FinishStep("node-a", StepStatus::kTimedOut);
  const Plan plan = c.Reconcile(At(minutes(40)));
  EXPECT_EQ(Lines(plan), (V{"Warning node-a RemediationStepFailed",
                            "Escalate node-a: remediation ladder exhausted",
                            "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
  const Escalate escalate = Only<Escalate>(plan).at(0);
  ASSERT_EQ(escalate.evidence.size(), 1u);
  EXPECT_EQ(escalate.evidence[0],
            (Evidence{"GpuXidFatal", "Xid48Dram", kDbeMessage, At(-minutes(1))}));
  EXPECT_EQ(escalate.incident, "20250101-000000");
  EXPECT_EQ(escalate.history.back().note, "remediation ladder exhausted");
  // Both failures are in the history the person reads.
  std::vector<std::string> notes;
  for (const HistoryEntry& h : escalate.history) notes.push_back(h.note);
  EXPECT_NE(std::find(notes.begin(), notes.end(), "gpu-reset failed: nvidia-smi -r: GPU busy"),
            notes.end());
  EXPECT_NE(std::find(notes.begin(), notes.end(), "reboot timed out"), notes.end());

  const NodeView& a = c.Node("node-a");
  EXPECT_TRUE(a.unschedulable);
  EXPECT_TRUE(a.has_unhealthy_taint);
  EXPECT_TRUE(a.has_repair_taint);
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(41)))), V{});  // stays until a person acts
}

TEST(Escalation, AStepThatNeverReportsTimesOutOnTheClock) {
  FakeCluster c = RemediatingNode();
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(9)))), V{});
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(10)))),  // gpu-reset's timeout is 10m
            (V{"Warning node-a RemediationStepFailed", "StartStep node-a reboot #2",
               "Event node-a RemediationStep", "SetRecord node-a remediating"}));
  EXPECT_EQ(c.Node("node-a").record.history.at(4).note, "gpu-reset timed out after 10m");
}

TEST(Escalation, AStepStartThatWasLostIsAskedForAgain) {
  FakeCluster c = RemediatingNode();
  c.Node("node-a").step.reset();  // the controller never created it
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(1)))), V{"StartStep node-a gpu-reset #1"});
}

TEST(Escalation, FailedValidationEscalates) {
  FakeCluster c = ValidatingNode();
  c.FinishStep("node-a", StepStatus::kFailed, "dcgmi diag -r 2: PCIe bandwidth");
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(6)))),
            (V{"Escalate node-a: validation failed: dcgmi diag -r 2: PCIe bandwidth",
               "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
}

TEST(Escalation, ValidationThatNeverFinishesEscalatesAtItsTimeout) {
  FakeCluster c = ValidatingNode();
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(34)))), V{});
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(35)))),
            (V{"Escalate node-a: validation timed out", "Warning node-a RemediationEscalated",
               "SetRecord node-a escalated"}));
}

TEST(Escalation, AFaultDuringTheHoldDownEscalates) {
  FakeCluster c = ValidatingNode();
  c.FinishStep("node-a", StepStatus::kSucceeded);
  c.Reconcile(At(minutes(6)));  // hold-down from 6m to 16m
  c.Node("node-a").conditions = {testing::Fault("GpuXidFatal", "Xid79", At(minutes(8)))};
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(9)))),
            (V{"Escalate node-a: GpuXidFatal/Xid79 True during the hold-down",
               "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
}

TEST(Escalation, AnOldFaultStillTrueWhenTheHoldDownEndsEscalates) {
  FakeCluster c = ValidatingNode();
  c.Node("node-a").conditions = {testing::Fault("GpuLost", "FallenOffBus", At(minutes(1)))};
  c.FinishStep("node-a", StepStatus::kSucceeded);
  c.Reconcile(At(minutes(6)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(15)))), V{});  // may still clear
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(16)))),
            (V{"Escalate node-a: GpuLost/FallenOffBus still True after the hold-down",
               "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
}

// node-a draining since At(0) with a pod its PodDisruptionBudget never lets go.
FakeCluster StuckDrain() {
  FakeCluster c;
  c.AddNode(testing::MakeNode("node-a"));
  NodeView& a = c.Node("node-a");
  a.conditions = {testing::Fault("GpuXidFatal", "Xid79", At())};
  PodView stuck = testing::MakePod("ml/db-0");
  stuck.pdb_blocked = true;
  a.pods = {stuck};
  c.Reconcile(At());
  c.Reconcile(At());
  EXPECT_EQ(c.Node("node-a").record.state, State::kDraining);
  return c;
}

TEST(Escalation, DrainTimeoutEscalatesRatherThanForceDeleting) {
  FakeCluster c = StuckDrain();
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(29)))),
            (V{"Evict ml/db-0 (node-a)", "Skipped node-a pdb"}));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(30)))),
            (V{"Escalate node-a: drain timed out after 30m with pods left: ml/db-0",
               "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
  EXPECT_EQ(c.Node("node-a").pods.size(), 1u);  // nothing deleted
}

TEST(Escalation, DrainTimeoutForceDeletesWhenConfiguredAndGoesOn) {
  FakeCluster c = StuckDrain();
  c.config.force_delete_after_timeout = true;
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(30)))),
            (V{"ForceDelete ml/db-0 (node-a)", "Warning node-a RemediationForceDelete"}));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(30)))),
            (V{"StartStep node-a gpu-reset #1", "Event node-a RemediationStep",
               "SetRecord node-a remediating"}));
}

}  // namespace
}  // namespace quotient::remediation
