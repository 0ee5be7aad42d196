// When automation keeps its hands off: a node opted out, a person's uncordon, conditions that
// are Unknown or of a reason the policy ignores, and dry-run.
#include <gtest/gtest.h>

#include <algorithm>

#include "remediation/fleet_builder.h"

namespace quotient::remediation {
namespace {

using std::chrono::minutes;
using testing::At;
using testing::FakeCluster;
using testing::Lines;
using V = std::vector<std::string>;

FakeCluster OneNode(const std::string& type = "GpuXidFatal", const std::string& reason = "Xid79",
                    ConditionStatus status = ConditionStatus::kTrue) {
  FakeCluster c;
  c.AddNode(testing::MakeNode("node-a"));
  c.Node("node-a").conditions = {testing::Fault(type, reason, At(), status)};
  c.Node("node-a").pods = {testing::MakePod("ml/web-1")};
  return c;
}

TEST(HandsOff, AnOptedOutNodeIsNeverTakenOut) {
  FakeCluster c = OneNode();
  c.Node("node-a").opted_out = true;
  const Plan plan = c.Reconcile(At());
  EXPECT_EQ(Lines(plan), V{"Skipped node-a opted-out"});
  EXPECT_EQ(c.Node("node-a").record.state, State::kHealthy);
}

TEST(HandsOff, OptingOutDuringADrainCancelsAndOptingInAgainResumes) {
  FakeCluster c = OneNode();
  c.Node("node-a").pods[0].pdb_blocked = true;
  c.Reconcile(At());  // cordoned
  c.Reconcile(At());  // draining
  c.Node("node-a").opted_out = true;
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(1)))),
            (V{"RemoveTaints node-a", "Event node-a RemediationCancelled",
               "SetRecord node-a cancelled"}));
  const NodeView& a = c.Node("node-a");
  EXPECT_FALSE(a.has_unhealthy_taint);
  EXPECT_TRUE(a.unschedulable);  // the cordon is left to the person who took over
  EXPECT_EQ(a.record.cancel_reason, kCancelOptOut);
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(2)))), V{});

  c.Node("node-a").opted_out = false;
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(3)))),
            (V{"Event node-a RemediationResumed", "SetRecord node-a healthy"}));
  // The fault is still there: a new incident.
  EXPECT_EQ(c.Node("node-a").record.incident, "");
  c.Reconcile(At(minutes(4)));
  EXPECT_EQ(c.Node("node-a").record.incident, "20250101-000400");
}

TEST(HandsOff, APersonsUncordonCancelsAndIsNotUndone) {
  FakeCluster c = OneNode();
  c.Node("node-a").pods.clear();
  c.Reconcile(At());
  c.Reconcile(At());
  c.Reconcile(At());                       // remediating
  c.Node("node-a").unschedulable = false;  // kubectl uncordon
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(1)))),
            (V{"RemoveTaints node-a", "Event node-a RemediationCancelled",
               "SetRecord node-a cancelled"}));
  EXPECT_EQ(c.Node("node-a").record.cancel_reason, kCancelManualUncordon);
  EXPECT_EQ(c.Node("node-a").record.history.back().note,
            "uncordoned by a person while in remediating");
  // The fault is still True, but the person decided: no new cordon.
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(2)))), V{});
  c.ClearFault("node-a", "GpuXidFatal", At(minutes(3)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(3)))),
            (V{"Event node-a RemediationResumed", "SetRecord node-a healthy"}));
}

TEST(HandsOff, UncordoningAnEscalatedNodeHandsItBack) {
  FakeCluster c = OneNode();
  NodeView& a = c.Node("node-a");
  a.record.state = State::kEscalated;
  a.record.incident = "20241231-000000";
  a.unschedulable = false;
  a.has_unhealthy_taint = a.has_repair_taint = true;
  EXPECT_EQ(Lines(c.Reconcile(At())), (V{"RemoveTaints node-a", "Event node-a RemediationCancelled",
                                         "SetRecord node-a cancelled"}));
  EXPECT_FALSE(c.Node("node-a").has_repair_taint);
}

TEST(HandsOff, UnknownConditionsAloneDoNothing) {
  FakeCluster c = OneNode("GpuXidFatal", "NodeAgentNotReporting", ConditionStatus::kUnknown);
  c.Node("node-a").conditions.push_back(
      testing::Fault("GpuLost", "NvmlTimeout", At(), ConditionStatus::kUnknown));
  c.Node("node-a").conditions.push_back(
      testing::Fault("IbPortDegraded", "IbPortHealthy", At(), ConditionStatus::kFalse));
  for (int minute : {0, 10, 60}) {
    const Plan plan = c.Reconcile(At(minutes(minute)));
    EXPECT_TRUE(plan.actions.empty());
    EXPECT_FALSE(plan.requeue_at.has_value());
  }
  EXPECT_EQ(c.Node("node-a").record, NodeRecord{});
}

TEST(HandsOff, AReasonThePolicyIgnoresTakesNoNodeAction) {
  FakeCluster c = OneNode("GpuMemoryDegraded", "RowRemapPending");
  EXPECT_TRUE(c.Reconcile(At()).actions.empty());
  c.Node("node-a").conditions[0].reason = "RowRemapFailure";
  EXPECT_EQ(testing::Only<Cordon>(c.Reconcile(At(minutes(1)))).size(), 1u);
}

TEST(HandsOff, AConditionTypeOutsideThePolicyIsIgnored) {
  FakeCluster c = OneNode("KernelDeadlock", "DockerHung");
  EXPECT_TRUE(c.Reconcile(At()).actions.empty());
}

TEST(HandsOff, DryRunOnlySaysWhatItWouldDo) {
  FakeCluster c = OneNode();
  c.config.dry_run = true;
  const Plan plan = c.Reconcile(At());
  EXPECT_TRUE(std::none_of(plan.actions.begin(), plan.actions.end(), IsMutating));
  EXPECT_EQ(Lines(plan), (V{"Warning node-a DryRunRemediationSuspect", "Skipped node-a dry-run",
                            "Warning node-a DryRunRemediationCordoned", "Skipped node-a dry-run"}));
  const auto notes = testing::Only<Skipped>(plan);
  EXPECT_EQ(notes.at(0).why, "would Cordon node-a GpuXidFatal");
  EXPECT_EQ(notes.at(1).why, "would SetRecord node-a cordoned");
  EXPECT_EQ(testing::Only<Event>(plan).at(0).message.rfind("[dry-run] ", 0), 0u);
  EXPECT_FALSE(plan.requeue_at.has_value());  // nothing moved on: no hot loop
  // Nothing was written, so the next reconcile says the same.
  EXPECT_EQ(c.Node("node-a").record, NodeRecord{});
  EXPECT_FALSE(c.Node("node-a").unschedulable);
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(1)))), Lines(plan));
}

TEST(HandsOff, DryRunOfADrainListsTheEvictions) {
  FakeCluster c = OneNode();
  c.Reconcile(At());
  c.Reconcile(At());  // draining, for real
  c.config.dry_run = true;
  const Plan plan = c.Reconcile(At(minutes(1)));
  ASSERT_EQ(testing::Only<Skipped>(plan).size(), 1u);
  EXPECT_EQ(testing::Only<Skipped>(plan).at(0).why, "would Evict ml/web-1 (node-a)");
  EXPECT_EQ(c.Node("node-a").pods.size(), 1u);
}

}  // namespace
}  // namespace quotient::remediation
