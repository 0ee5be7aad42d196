// The full path of one incident, Healthy -> Suspect -> Cordoned -> Draining -> Remediating ->
// Validating -> Healthy, reconcile by reconcile on a fake clock, with the expected plan of each
// step written out from the rules in decide.h.
#include <gtest/gtest.h>

#include "remediation/fleet_builder.h"

namespace quotient::remediation {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::At;
using testing::FakeCluster;
using testing::Lines;
using testing::Only;
using V = std::vector<std::string>;

// node-a: an InfiniBand fault (confirm 5m; ladder driver-reload then reboot), a plain pod, a pod
// a PodDisruptionBudget protects, a DaemonSet pod and one pod of gang ml/train, whose other pod
// runs on node-b.
FakeCluster TwoNodes() {
  FakeCluster c;
  NodeView a = testing::MakeNode("node-a");
  PodView guarded = testing::MakePod("ml/pdb-1");
  guarded.pdb_blocked = true;
  a.pods = {testing::MakePod("ml/web-1"), guarded, testing::DaemonSetPod("kube-system/agent-a"),
            testing::GangPod("ml/train-0", "ml/train")};
  NodeView b = testing::MakeNode("node-b", "pool-a", "rack-2");
  b.pods = {testing::GangPod("ml/train-1", "ml/train")};
  c.AddNode(a);
  c.AddNode(b);
  c.IndexGang("ml/train");
  return c;
}

TEST(HappyPath, FaultIsConfirmedCordonedDrainedRepairedValidatedAndReturned) {
  FakeCluster c = TwoNodes();
  c.Node("node-a").conditions = {testing::Fault("IbPortDegraded", "LinkDowned", At())};

  // The fault opens an incident; IbPortDegraded is rate-based, so it is confirmed after 5m.
  Plan plan = c.Reconcile(At());
  EXPECT_EQ(Lines(plan), (V{"Warning node-a RemediationSuspect", "SetRecord node-a suspect"}));
  EXPECT_EQ(plan.requeue_at, At(minutes(5)));
  EXPECT_EQ(c.Node("node-a").record.incident, "20250101-000000");
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(2)))), V{});

  plan = c.Reconcile(At(minutes(5)));
  EXPECT_EQ(Lines(plan), (V{"Cordon node-a IbPortDegraded", "Warning node-a RemediationCordoned",
                            "SetRecord node-a cordoned"}));
  EXPECT_TRUE(c.Node("node-a").unschedulable);
  EXPECT_EQ(c.Node("node-a").record.incidents, std::vector<Time>{At(minutes(5))});

  EXPECT_EQ(Lines(c.Reconcile(At(minutes(5)))),
            (V{"Event node-a RemediationDraining", "SetRecord node-a draining"}));

  // The drain: the DaemonSet pod stays; the gang's pod here takes its partner on node-b with it;
  // the PDB-protected pod is asked for and refused.
  plan = c.Reconcile(At(minutes(5)));
  EXPECT_EQ(Lines(plan),
            (V{"Evict ml/pdb-1 (node-a)", "Skipped node-a pdb", "Evict ml/train-0 (node-a)",
               "Evict ml/train-1 (node-a)", "Evict ml/web-1 (node-a)"}));
  EXPECT_EQ(Only<Evict>(plan).at(2).gang, "ml/train");
  EXPECT_EQ(Only<Evict>(plan).at(2).incident, "20250101-000000");
  EXPECT_EQ(plan.requeue_at, At(minutes(5) + seconds(30)));
  EXPECT_EQ(c.evicted, (V{"ml/train-0", "ml/train-1", "ml/web-1"}));

  // Retried while the PDB says no; the gang is not evicted a second time.
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(5) + seconds(30)))),
            (V{"Evict ml/pdb-1 (node-a)", "Skipped node-a pdb"}));
  c.Node("node-a").pods[0].pdb_blocked = false;  // ml/pdb-1: its budget allows it now
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(6)))), V{"Evict ml/pdb-1 (node-a)"});
  EXPECT_EQ(c.evicted, (V{"ml/train-0", "ml/train-1", "ml/web-1", "ml/pdb-1"}));

  // Only the DaemonSet pod is left: the first rung starts.
  plan = c.Reconcile(At(minutes(6)));
  EXPECT_EQ(Lines(plan), (V{"StartStep node-a driver-reload #1", "Event node-a RemediationStep",
                            "SetRecord node-a remediating"}));
  EXPECT_EQ(Only<StartStep>(plan).at(0).timeout, minutes(15));
  EXPECT_EQ(plan.requeue_at, At(minutes(21)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(7)))), V{});  // running

  // The first rung fails: the second starts.
  c.FinishStep("node-a", StepStatus::kFailed, "mlx5 reload failed");
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(8)))),
            (V{"Warning node-a RemediationStepFailed", "StartStep node-a reboot #2",
               "Event node-a RemediationStep", "SetRecord node-a remediating"}));

  // The reboot works and the agent sees the port healthy again: validation.
  c.FinishStep("node-a", StepStatus::kSucceeded);
  c.ClearFault("node-a", "IbPortDegraded", At(minutes(20)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(20)))),
            (V{"StartValidation node-a #3", "Event node-a RemediationValidating",
               "SetRecord node-a validating"}));

  // The validation pod passes; the 10m hold-down starts; no fault appears.
  c.FinishStep("node-a", StepStatus::kSucceeded);
  plan = c.Reconcile(At(minutes(25)));
  EXPECT_EQ(Lines(plan), V{"SetRecord node-a validating"});
  EXPECT_EQ(plan.requeue_at, At(minutes(35)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(30)))), V{});

  plan = c.Reconcile(At(minutes(35)));
  EXPECT_EQ(Lines(plan), (V{"SetRecord node-a healthy", "Uncordon node-a",
                            "Event node-a RemediationRecovered"}));
  const NodeView& a = c.Node("node-a");
  EXPECT_FALSE(a.unschedulable);
  EXPECT_FALSE(a.has_unhealthy_taint);
  EXPECT_EQ(a.record.incident, "");
  // The first incident within the flap window: the base backoff (10m) before another cordon.
  EXPECT_EQ(a.record.backoff_until, At(minutes(45)));
  std::vector<State> states;
  for (const HistoryEntry& h : a.record.history) states.push_back(h.state);
  EXPECT_EQ(states,
            (std::vector<State>{State::kSuspect, State::kCordoned, State::kDraining,
                                State::kRemediating, State::kRemediating, State::kRemediating,
                                State::kValidating, State::kValidating, State::kHealthy}));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(36)))), V{});
}

TEST(HappyPath, FaultClearedWithinItsConfirmWindowClosesTheIncident) {
  FakeCluster c = TwoNodes();
  c.Node("node-a").conditions = {testing::Fault("GpuPcieDegraded", "WidthBelowMax", At())};
  c.Reconcile(At());
  c.ClearFault("node-a", "GpuPcieDegraded", At(minutes(3)));
  EXPECT_EQ(Lines(c.Reconcile(At(minutes(3)))),
            (V{"Event node-a RemediationFaultCleared", "SetRecord node-a healthy"}));
  EXPECT_FALSE(c.Node("node-a").unschedulable);
  EXPECT_TRUE(c.evicted.empty());
}

TEST(HappyPath, FatalFaultIsCordonedOnTheReconcileThatSeesIt) {
  FakeCluster c = TwoNodes();
  c.Node("node-a").conditions = {testing::Fault("GpuXidFatal", "Xid79", At())};
  EXPECT_EQ(Lines(c.Reconcile(At())),
            (V{"Warning node-a RemediationSuspect", "Cordon node-a GpuXidFatal",
               "Warning node-a RemediationCordoned", "SetRecord node-a cordoned"}));
}

TEST(HappyPath, AGangSpreadOverTwoDrainingNodesIsEvictedOnce) {
  FakeCluster c = TwoNodes();
  c.config.rails.max_per_domain = 0;
  for (const char* name : {"node-a", "node-b"}) {
    c.Node(name).pods = {testing::GangPod(std::string("ml/g-") + name, "ml/g")};
    c.Node(name).record.state = State::kDraining;
    c.Node(name).record.since = At();
    c.Node(name).record.incident = "20250101-000000";
    c.Node(name).unschedulable = true;
  }
  c.Node("node-a").pods.push_back(testing::MakePod("kube-system/mirror"));
  c.Node("node-a").pods.back().mirror = true;
  c.IndexGang("ml/g");
  Plan plan = Decide(c.fleet, c.config, At(minutes(1)));
  EXPECT_EQ(Lines(plan), (V{"Evict ml/g-node-a (node-a)", "Evict ml/g-node-b (node-a)"}));
}

TEST(HappyPath, ACutPlanIsRepairedOnTheNextReconcile) {
  // SetRecord(Healthy) was applied, the Uncordon after it was not.
  FakeCluster c = TwoNodes();
  c.Node("node-a").unschedulable = true;
  c.Node("node-a").has_unhealthy_taint = true;
  EXPECT_EQ(Lines(c.Reconcile(At())), V{"Uncordon node-a"});
  EXPECT_FALSE(c.Node("node-a").unschedulable);
}

}  // namespace
}  // namespace quotient::remediation
