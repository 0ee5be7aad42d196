// InfiniBand port readings become IbPortDegraded as section 2.6's table says: not ACTIVE or not
// LinkUp for 3 polls, rate below the node's expectation for 3 polls, link_downed at once, more
// than 120 symbol errors an hour, a port that vanished for 3 polls.
#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::Agent;
using testing::ConditionOf;
using testing::HealthyNode;

IbPortReading Port(const std::string& device, int port) {
  IbPortReading p;
  p.device = device;
  p.port = port;
  p.state = 4;
  p.state_name = "ACTIVE";
  p.phys_state = 5;
  p.phys_state_name = "LinkUp";
  p.rate_mbps = 400000;
  p.rate_text = "400 Gb/sec (4X NDR)";
  p.link_layer = "InfiniBand";
  p.link_downed = 0;
  p.symbol_error = 0;
  return p;
}

NodeObservation NodeWithPorts() {
  NodeObservation node = HealthyNode(1);
  node.expected_ib_rate_gbps = 400;
  node.ib_ports = {Port("mlx5_0", 1), Port("mlx5_1", 1)};
  return node;
}

std::vector<ConditionStatus> StatusesOver(Agent& agent, const NodeObservation& node, int polls) {
  std::vector<ConditionStatus> statuses;
  for (int i = 0; i < polls; ++i) {
    statuses.push_back(ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded).status);
  }
  return statuses;
}

const auto T = ConditionStatus::kTrue;
const auto F = ConditionStatus::kFalse;

TEST(NodeHealthEvaluateIbTest, HealthyPortsAreFalse) {
  Agent agent;
  EXPECT_EQ(ConditionOf(agent.Poll(NodeWithPorts()), ConditionType::kIbPortDegraded).reason,
            "IbPortsHealthy");
}

TEST(NodeHealthEvaluateIbTest, APortDownIsRaisedOnTheThirdConsecutivePoll) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.ib_ports[1].state = 1;
  node.ib_ports[1].state_name = "DOWN";
  EXPECT_EQ(StatusesOver(agent, node, 3), (std::vector<ConditionStatus>{F, F, T}));
  const NodeCondition& c = ConditionOf(agent.last(), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.reason, "PortNotActive");
  EXPECT_EQ(c.message,
            "[ib=mlx5_1 port=1] port state 1: DOWN, expected 4: ACTIVE - RecommendedAction: "
            "PORT_RESET");
}

TEST(NodeHealthEvaluateIbTest, ADisabledPhysicalLinkIsNotLinkUp) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.ib_ports[0].phys_state = 3;
  node.ib_ports[0].phys_state_name = "Disabled";
  StatusesOver(agent, node, 3);
  const NodeCondition& c = ConditionOf(agent.last(), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.status, T);
  EXPECT_EQ(c.reason, "PhysNotLinkUp");
  EXPECT_EQ(c.message,
            "[ib=mlx5_0 port=1] physical state 3: Disabled, expected 5: LinkUp - "
            "RecommendedAction: PORT_RESET");
}

TEST(NodeHealthEvaluateIbTest, HdrOnAnNdrNodeIsBelowTheExpectedRateAfterThreePolls) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.ib_ports[0].rate_mbps = 200000;
  node.ib_ports[0].rate_text = "200 Gb/sec (4X HDR)";
  EXPECT_EQ(StatusesOver(agent, node, 3), (std::vector<ConditionStatus>{F, F, T}));
  const NodeCondition& c = ConditionOf(agent.last(), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.reason, "RateBelowExpected");
  EXPECT_EQ(c.message,
            "[ib=mlx5_0 port=1] rate 200 Gb/sec (4X HDR), expected 400 Gb/sec - "
            "RecommendedAction: PORT_RESET");
}

TEST(NodeHealthEvaluateIbTest, WithoutAnExpectedRateTheRateIsNotJudged) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.expected_ib_rate_gbps.reset();
  node.ib_ports[0].rate_mbps = 200000;
  EXPECT_EQ(StatusesOver(agent, node, 3), (std::vector<ConditionStatus>{F, F, F}));
}

TEST(NodeHealthEvaluateIbTest, ALinkDownedIncrementIsRaisedAtOnceAndClearsAfterThreeQuietPolls) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.ib_ports[0].link_downed = 3;  // history from before the agent: a baseline
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded).status, F);
  node.ib_ports[0].link_downed = 4;
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.status, T);
  EXPECT_EQ(c.reason, "LinkDowned");
  EXPECT_EQ(c.message,
            "[ib=mlx5_0 port=1] link_downed rose from 3 to 4 - RecommendedAction: PORT_RESET");
  EXPECT_EQ(StatusesOver(agent, node, 3), (std::vector<ConditionStatus>{T, T, F}));
}

TEST(NodeHealthEvaluateIbTest, MoreThan120SymbolErrorsInAnHourIsRaised) {
  Agent agent(DefaultPolicy(), 0, 600);
  NodeObservation node = NodeWithPorts();
  agent.Poll(node);
  node.ib_ports[0].symbol_error = 120;  // not more than 120
  EXPECT_EQ(ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded).status, F);
  node.ib_ports[0].symbol_error = 121;
  const NodeCondition& c = ConditionOf(agent.Poll(node), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.status, T);
  EXPECT_EQ(c.reason, "SymbolErrorRate");
  EXPECT_EQ(c.message,
            "[ib=mlx5_0 port=1] symbol errors over 120 per 3600 s - RecommendedAction: "
            "PORT_RESET");
}

TEST(NodeHealthEvaluateIbTest, APortThatVanishesIsMissingAfterThreePolls) {
  Agent agent;
  agent.Poll(NodeWithPorts());
  NodeObservation node = NodeWithPorts();
  node.ib_ports.pop_back();
  EXPECT_EQ(StatusesOver(agent, node, 3), (std::vector<ConditionStatus>{F, F, T}));
  const NodeCondition& c = ConditionOf(agent.last(), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.reason, "DeviceMissing");
  EXPECT_EQ(c.message,
            "[ib=mlx5_1 port=1] port seen earlier this boot is gone from sysfs - "
            "RecommendedAction: PORT_RESET");
  // It comes back: three healthy polls later the condition clears.
  EXPECT_EQ(StatusesOver(agent, NodeWithPorts(), 3), (std::vector<ConditionStatus>{T, T, F}));
}

TEST(NodeHealthEvaluateIbTest, ASaturatedCounterIsReportedOnce) {
  Agent agent;
  NodeObservation node = NodeWithPorts();
  node.ib_ports[0].link_downed = 255;
  const Evaluation& first = agent.Poll(node);
  ASSERT_EQ(first.events.size(), 1u);
  EXPECT_EQ(first.events[0].reason, "CounterSaturated");
  EXPECT_EQ(first.events[0].message,
            "[ib=mlx5_0 port=1] link_downed is stuck at its maximum 255: new errors are "
            "invisible until the counters are cleared");
  EXPECT_TRUE(agent.Poll(node).events.empty());
}

TEST(NodeHealthEvaluateIbTest, UnreadableSysfsIsUnknownAndKeepsWhatWasRaised) {
  Agent agent;
  NodeObservation down = NodeWithPorts();
  down.ib_ports[0].state = 1;
  StatusesOver(agent, down, 3);
  NodeObservation blind = NodeWithPorts();
  blind.infiniband_readable = false;
  blind.ib_ports.clear();
  // Raised before: stays raised (an unseen port is not a healthy one).
  EXPECT_EQ(StatusesOver(agent, blind, 5), (std::vector<ConditionStatus>(5, T)));
  Agent fresh;
  const NodeCondition& c = ConditionOf(fresh.Poll(blind), ConditionType::kIbPortDegraded);
  EXPECT_EQ(c.status, ConditionStatus::kUnknown);
  EXPECT_EQ(c.reason, "SysfsUnreadable");
}

}  // namespace
}  // namespace quotient::nodehealth
