#include "remediator/fleet_view.h"

#include <gtest/gtest.h>

namespace quotient::remediator {
namespace {

namespace r = remediation;

ObservedNode Node(const std::string& name, std::map<std::string, std::string> labels = {}) {
  ObservedNode n;
  n.name = name;
  n.uid = name + "-uid";
  n.labels = std::move(labels);
  n.ready = true;
  n.boot_id = "boot-1";
  return n;
}

ObservedPod Pod(const std::string& key, const std::string& node, const std::string& gang = "") {
  ObservedPod p;
  p.key = key;
  p.uid = key + "-uid";
  p.node = node;
  p.gang = gang;
  return p;
}

TEST(FleetView, NodesGetPoolDomainOptOutAndTheirOwnPodsOnly) {
  r::Config config = r::DefaultConfig();
  ObservedNode a = Node("a", {{config.pool_label, "h100"},
                              {config.failure_domain_label, "rack-1"},
                              {"quotient.dev/remediation", "disabled"}});
  ObservedNode b = Node("b");
  ObservedPod on_a = Pod("t/x", "a");
  ObservedPod on_b = Pod("t/y", "b");
  ObservedPod pending = Pod("t/z", "");
  ObservedPod step = Pod("quotient-system/s", "a");
  step.step = ObservedStep{};
  FleetInputs in;
  in.nodes = {&a, &b};
  in.pods = {&on_a, &on_b, &pending, &step};
  in.pdb_blocked = {"t/x-uid"};
  BuiltFleet fleet = BuildFleetView(in, config);
  ASSERT_EQ(fleet.view.nodes.size(), 2u);
  const r::NodeView& va = fleet.view.nodes[0];
  EXPECT_EQ(va.pool, "h100");
  EXPECT_EQ(va.domain, "rack-1");
  EXPECT_TRUE(va.opted_out);
  ASSERT_EQ(va.pods.size(), 1u) << "our own step pod is not drained";
  EXPECT_EQ(va.pods[0].key, "t/x");
  EXPECT_TRUE(va.pods[0].pdb_blocked);
  EXPECT_FALSE(fleet.view.nodes[1].opted_out);
  EXPECT_FALSE(fleet.view.nodes[1].pods[0].pdb_blocked);
}

TEST(FleetView, AGangListsItsBoundMembersOnEveryNode) {
  ObservedNode a = Node("a");
  ObservedNode b = Node("b");
  ObservedPod w0 = Pod("t/w-0", "a", "t/pg");
  ObservedPod w1 = Pod("t/w-1", "b", "t/pg");
  ObservedPod w2 = Pod("t/w-2", "", "t/pg");  // not bound: nothing to evict
  FleetInputs in;
  in.nodes = {&a, &b};
  in.pods = {&w1, &w2, &w0};
  BuiltFleet fleet = BuildFleetView(in, r::DefaultConfig());
  ASSERT_EQ(fleet.view.gangs.count("t/pg"), 1u);
  const auto& members = fleet.view.gangs.at("t/pg");
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].key, "t/w-0");
  EXPECT_EQ(members[0].node, "a");
  EXPECT_EQ(members[1].key, "t/w-1");
  EXPECT_EQ(members[1].node, "b");
}

TEST(FleetView, OnlyTheStepTheRecordNamesIsObserved) {
  ObservedNode a = Node("a");
  a.record_json =
      R"({"state":"remediating","incident":"i1","step":"gpu-reset","attempts":2,"rung":0})";
  FleetInputs in;
  in.nodes = {&a};
  ObservedStep old_attempt{{"a", "i1", "gpu-reset", 1}, StepPhase::kFailed, "old", ""};
  ObservedStep other_incident{{"a", "i0", "gpu-reset", 2}, StepPhase::kSucceeded, "", ""};
  in.steps = {old_attempt, other_incident};
  BuiltFleet fleet = BuildFleetView(in, r::DefaultConfig());
  EXPECT_FALSE(fleet.view.nodes[0].step.has_value());
  in.steps.push_back({{"a", "i1", "gpu-reset", 2}, StepPhase::kSucceeded, "", ""});
  fleet = BuildFleetView(in, r::DefaultConfig());
  ASSERT_TRUE(fleet.view.nodes[0].step.has_value());
  EXPECT_EQ(fleet.view.nodes[0].step->status, r::StepStatus::kSucceeded);
  EXPECT_EQ(fleet.view.nodes[0].step->attempt, 2);
}

TEST(FleetView, ARebootSucceedsWhenTheNodeIsBackWithANewBootId) {
  const r::Config config = r::DefaultConfig();  // reboot: succeedsOnReboot
  ObservedNode node = Node("a");
  ObservedStep reboot{{"a", "i1", "reboot", 1}, StepPhase::kRunning, "", "boot-1"};
  EXPECT_EQ(ObserveStep(reboot, node, config).status, r::StepStatus::kPending);
  reboot.phase = StepPhase::kFailed;  // its command failed: the node never went down
  EXPECT_EQ(ObserveStep(reboot, node, config).status, r::StepStatus::kFailed);
  node.boot_id = "boot-2";
  node.ready = false;  // rebooted, not back yet
  EXPECT_EQ(ObserveStep(reboot, node, config).status, r::StepStatus::kPending);
  node.ready = true;  // back; the pod the reboot killed shows Failed, which does not count
  EXPECT_EQ(ObserveStep(reboot, node, config).status, r::StepStatus::kSucceeded);
  // A step that does not reboot goes by its own phase, whatever the bootID.
  ObservedStep reset{{"a", "i1", "gpu-reset", 1}, StepPhase::kFailed, "exit 1", "boot-1"};
  EXPECT_EQ(ObserveStep(reset, node, config).status, r::StepStatus::kFailed);
  EXPECT_EQ(ObserveStep(reset, node, config).message, "exit 1");
}

TEST(FleetView, ANodeWhoseRecordCannotBeReadIsLeftOutAndNamed) {
  ObservedNode a = Node("a");
  a.record_json = "{not json";
  ObservedNode b = Node("b");
  FleetInputs in;
  in.nodes = {&a, &b};
  BuiltFleet fleet = BuildFleetView(in, r::DefaultConfig());
  ASSERT_EQ(fleet.view.nodes.size(), 1u);
  EXPECT_EQ(fleet.view.nodes[0].name, "b");
  ASSERT_EQ(fleet.problems.size(), 1u);
  EXPECT_TRUE(fleet.problems[0].starts_with("node a: annotation quotient.dev/remediation: "))
      << fleet.problems[0];
}

}  // namespace
}  // namespace quotient::remediator
