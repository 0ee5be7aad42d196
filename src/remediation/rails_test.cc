// The safety rails: concurrency caps, the circuit breaker, flap damping and the recurrence
// budget. Pools are padded with healthy nodes where a test is not about the breaker's
// percentage, so two faults stay under its 10%.
#include <gtest/gtest.h>

#include "remediation/fleet_builder.h"

namespace quotient::remediation {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using testing::At;
using testing::FakeCluster;
using testing::Lines;
using V = std::vector<std::string>;

FakeCluster PaddedPool(int healthy) {
  FakeCluster c;
  for (NodeView& n : testing::HealthyNodes("ok", healthy)) c.AddNode(std::move(n));
  return c;
}

void Break(FakeCluster& c, const std::string& node, const std::string& reason, Time since,
           const std::string& type = "GpuXidFatal") {
  c.Node(node).conditions = {testing::Fault(type, reason, since)};
}

TEST(Rails, OneSlotPerFailureDomainLetsOneNodeOfARackGoAtATime) {
  FakeCluster c = PaddedPool(28);
  c.AddNode(testing::MakeNode("node-a", "pool-a", "rack-1"));
  c.AddNode(testing::MakeNode("node-b", "pool-a", "rack-1"));
  c.AddNode(testing::MakeNode("node-c", "pool-a", "rack-2"));
  Break(c, "node-a", "Xid79", At());
  Break(c, "node-b", "Xid48Dram", At());
  Break(c, "node-c", "Xid95", At());
  const Plan plan = c.Reconcile(At());
  EXPECT_EQ(Lines(plan), (V{"Warning node-a RemediationSuspect", "Cordon node-a GpuXidFatal",
                            "Warning node-a RemediationCordoned", "SetRecord node-a cordoned",
                            "Warning node-b RemediationSuspect", "Event node-b RemediationWaiting",
                            "Skipped node-b domain-cap", "SetRecord node-b suspect",
                            "Warning node-c RemediationSuspect", "Cordon node-c GpuXidFatal",
                            "Warning node-c RemediationCordoned", "SetRecord node-c cordoned"}));
  EXPECT_EQ(testing::Only<Skipped>(plan).at(0).why,
            "failure domain \"rack-1\" has 1 of 1 remediations running");
  // Still waiting: a note, but no second Event and no record write.
  const Plan again = c.Reconcile(At(minutes(1)));
  const auto skipped = testing::Only<Skipped>(again);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].node, "node-b");
  for (const Event& e : testing::Only<Event>(again)) EXPECT_NE(e.node, "node-b");
  for (const SetRecord& r : testing::Only<SetRecord>(again)) EXPECT_NE(r.node, "node-b");
}

TEST(Rails, TheWaitingNodeProceedsInThePlanThatFreesTheSlot) {
  FakeCluster c = PaddedPool(28);
  c.AddNode(testing::MakeNode("node-a", "pool-a", "rack-1"));
  c.AddNode(testing::MakeNode("node-b", "pool-a", "rack-1"));
  Break(c, "node-a", "Xid79", At());
  Break(c, "node-b", "Xid48Dram", At());
  Time now = At();
  const Plan plan = testing::RunToHealthy(c, "node-a", now);
  EXPECT_EQ(Lines(plan), (V{"SetRecord node-a healthy", "Uncordon node-a",
                            "Event node-a RemediationRecovered", "Cordon node-b GpuXidFatal",
                            "Warning node-b RemediationCordoned", "SetRecord node-b cordoned"}));
  EXPECT_EQ(c.Node("node-b").record.waiting, "");
}

TEST(Rails, ManyNodesWithTheSameReasonTripTheBreakerUntilTheWindowPasses) {
  FakeCluster c = PaddedPool(37);  // 3 of 40 is under 10%: the same-reason rule trips alone
  for (const char* name : {"node-a", "node-b", "node-c"}) {
    c.AddNode(testing::MakeNode(name, "pool-a", std::string("rack-") + name));
    Break(c, name, "Xid119", At());
  }
  Plan plan = c.Reconcile(At());
  EXPECT_TRUE(testing::Only<Cordon>(plan).empty());
  const auto skipped = testing::Only<Skipped>(plan);
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_EQ(skipped[0].rail, "breaker");
  EXPECT_EQ(skipped[0].why,
            "circuit breaker open: 3 nodes report GpuXidFatal/Xid119 within 10m (a fleet-wide "
            "cause needs a person)");
  EXPECT_EQ(testing::Only<Event>(plan).at(1).message, "not cordoned yet: " + skipped[0].why);
  EXPECT_EQ(plan.requeue_at, At(minutes(10)));
  EXPECT_TRUE(testing::Only<Cordon>(c.Reconcile(At(minutes(9)))).empty());
  // The incidents leave the window: the breaker closes and each node, alone in its rack, goes.
  EXPECT_EQ(testing::Only<Cordon>(c.Reconcile(At(minutes(10)))).size(), 3u);
}

TEST(Rails, APersonResetsTheBreaker) {
  FakeCluster c = PaddedPool(37);
  for (const char* name : {"node-a", "node-b", "node-c"}) {
    c.AddNode(testing::MakeNode(name, "pool-a", std::string("rack-") + name));
    Break(c, name, "Xid119", At());
  }
  c.Reconcile(At());
  c.config.rails.breaker_reset_at = At(minutes(2));
  EXPECT_EQ(testing::Only<Cordon>(c.Reconcile(At(minutes(3)))).size(), 3u);
}

TEST(Rails, TooLargeAShareOfAPoolTripsTheBreakerForThatPoolOnly) {
  FakeCluster c = PaddedPool(8);
  c.AddNode(testing::MakeNode("node-a", "pool-a", "rack-a"));
  c.AddNode(testing::MakeNode("node-b", "pool-a", "rack-b"));
  c.AddNode(testing::MakeNode("node-x", "pool-b", "rack-x"));
  Break(c, "node-a", "Xid79", At());
  Break(c, "node-b", "LinkDowned", At(), "IbPortDegraded");  // confirmed at 5m
  Break(c, "node-x", "Xid79", At());
  // 2 of pool-a's 10 nodes (20%) opened an incident: node-a waits; pool-b's one node does not.
  const Plan plan = c.Reconcile(At());
  ASSERT_EQ(testing::Only<Cordon>(plan).size(), 1u);
  EXPECT_EQ(testing::Only<Cordon>(plan).at(0).node, "node-x");
  const auto skipped = testing::Only<Skipped>(plan);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].why,
            "circuit breaker open: 2 of 10 nodes of pool \"pool-a\" opened an incident within "
            "10m (more than 10%)");
}

TEST(Rails, OneFaultInASmallPoolDoesNotTripTheBreaker) {
  FakeCluster c = PaddedPool(3);  // 1 of 4 is 25%, but one node is not a storm
  c.AddNode(testing::MakeNode("node-a", "pool-a", "rack-a"));
  Break(c, "node-a", "Xid79", At());
  EXPECT_EQ(testing::Only<Cordon>(c.Reconcile(At())).size(), 1u);
}

TEST(Rails, FlappingBacksOffDoublingAndTheThirdIncidentEscalates) {
  FakeCluster c = PaddedPool(29);
  c.AddNode(testing::MakeNode("node-a"));
  Break(c, "node-a", "Xid79", At());
  Time now = At();
  testing::RunToHealthy(c, "node-a", now);
  const Time first_back = now;
  EXPECT_EQ(c.Node("node-a").record.backoff_until, first_back + minutes(10));

  // Broken again 2 minutes later: it waits out the 10m backoff before it is cordoned.
  Break(c, "node-a", "Xid79", first_back + minutes(2));
  Plan plan = c.Reconcile(first_back + minutes(2));
  EXPECT_EQ(Lines(plan), (V{"Warning node-a RemediationSuspect", "Event node-a RemediationWaiting",
                            "Skipped node-a backoff", "SetRecord node-a suspect"}));
  EXPECT_EQ(plan.requeue_at, first_back + minutes(10));
  plan = c.Reconcile(first_back + minutes(10));
  EXPECT_EQ(testing::Only<Cordon>(plan).size(), 1u);

  // The second incident within the flap window doubles it.
  now = first_back + minutes(10);
  testing::RunToHealthy(c, "node-a", now);
  EXPECT_EQ(c.Node("node-a").record.backoff_until, now + minutes(20));

  // The third within 7 days goes straight to a person, backoff or not.
  Break(c, "node-a", "Xid79", now + minutes(1));
  EXPECT_EQ(Lines(c.Reconcile(now + minutes(1))),
            (V{"Warning node-a RemediationSuspect", "Cordon node-a GpuXidFatal",
               "Escalate node-a: GpuXidFatal/Xid79: incident 3 within 7d (recurrence budget 3)",
               "Warning node-a RemediationEscalated", "SetRecord node-a escalated"}));
  EXPECT_TRUE(c.Node("node-a").has_repair_taint);
}

TEST(Rails, TheBackoffDoublesPerIncidentInTheWindowUpToItsMaximum) {
  // Back from a third incident within 24h: 10m * 2^2 = 40m, capped at 30m.
  FakeCluster c;
  c.config.rails.recurrence_budget = 0;  // off: only the backoff is under test
  c.config.rails.backoff_max = minutes(30);
  c.AddNode(testing::MakeNode("node-a"));
  NodeRecord& r = c.Node("node-a").record;
  r.state = State::kValidating;
  r.incident = "x";
  r.incidents = {At() - hours(20), At() - hours(2), At() - hours(1)};
  r.hold_down_since = At() - minutes(10);
  c.Node("node-a").unschedulable = true;
  c.Reconcile(At());
  EXPECT_EQ(c.Node("node-a").record.state, State::kHealthy);
  EXPECT_EQ(c.Node("node-a").record.backoff_until, At(minutes(30)));
  // An incident older than the flap window no longer counts: 2 in the window -> 20m.
  c.config.rails.backoff_max = hours(4);
  c.Node("node-a").unschedulable = true;
  c.Node("node-a").record.state = State::kValidating;
  c.Node("node-a").record.hold_down_since = At(hours(4)) - minutes(10);
  c.Reconcile(At(hours(4)));
  EXPECT_EQ(c.Node("node-a").record.backoff_until, At(hours(4) + minutes(20)));
}

TEST(Rails, GlobalAndPoolCapsHoldNodesInOtherwiseFreeDomains) {
  FakeCluster c = PaddedPool(37);
  c.config.rails.max_global = 1;
  c.AddNode(testing::MakeNode("node-a", "pool-a", "rack-a"));
  c.AddNode(testing::MakeNode("node-b", "pool-a", "rack-b"));
  Break(c, "node-a", "Xid79", At());
  Break(c, "node-b", "Xid95", At());
  Plan plan = c.Reconcile(At());
  EXPECT_EQ(testing::Only<Skipped>(plan).at(0).rail, "global-cap");
  c.config.rails.max_global = 0;
  c.config.rails.max_per_pool = 1;
  plan = c.Reconcile(At(minutes(1)));
  EXPECT_EQ(testing::Only<Skipped>(plan).at(0).rail, "pool-cap");
  EXPECT_EQ(testing::Only<Skipped>(plan).at(0).why,
            "pool \"pool-a\" has 1 of 1 remediations running");
}

}  // namespace
}  // namespace quotient::remediation
