// Health-aware scheduling on the real API server: the node agent's conditions and per-GPU
// health (written here as the agent writes them) keep the scheduler off a failing node and off
// one failing GPU, and a queue's fair share follows the healthy capacity.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Nodes;
using kubeclient::resources::Pods;
using nlohmann::json;

// The agent's condition on the node's status, merged by type (the kubelet's own stay).
void SetCondition(kubeclient::Client& admin, const std::string& node, const std::string& type,
                  const std::string& status, const std::string& reason) {
  const json patch = {{"status",
                       {{"conditions",
                         {{{"type", type},
                           {"status", status},
                           {"reason", reason},
                           {"message",
                            "[gpu=GPU-0 bdf=0000:3b:00.0 code=79] GPU has fallen off "
                            "the bus - RecommendedAction: RESTART_BM"},
                           {"lastHeartbeatTime", "2026-11-30T00:00:00Z"},
                           {"lastTransitionTime", "2026-11-30T00:00:00Z"}}}}}}};
  auto patched = admin.Patch(Nodes(), "", node, kubeclient::PatchType::kStrategicMerge,
                             patch.dump(), "status");
  ASSERT_TRUE(patched.ok()) << patched.error().Describe();
}

std::string FairShareGpus(kubeclient::Client& admin, const std::string& queue) {
  auto q = admin.Get(kubeclient::resources::Queues(), "", queue);
  if (!q.ok()) return "";
  const json status = json::parse(q->json).value("status", json::object());
  return status.value("fairShare", json::object()).value("nvidia.com/gpu", "");
}

TEST(NodeHealthE2ETest, AFaultyNodeAndAnUnhealthyGpuAreLeftOutOfPlacementAndFairShare) {
  // Quota 0, weight 1: the queue's fair share is what it asks for, up to the healthy GPUs the
  // cluster has (KAI caps a share at the request: resource_division.go).
  TwoNodeCluster cluster("nh", {{"nh-team", 0}});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-nh";
  const std::string faulty = cluster.nodes[0];
  const std::string healthy = cluster.nodes[1];
  SchedulerProcess process(scheduler);

  SetCondition(admin, faulty, "GpuXidFatal", "True", "Xid79");
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        admin.Create(Pods(), ns, GpuPod("p-" + std::to_string(i), scheduler, "nh-team", 1)).ok());
  }
  // Eight fit the healthy node; the faulty one takes none.
  ASSERT_TRUE(WaitFor(
      [&] {
        int bound = 0;
        for (int i = 0; i < 10; ++i) bound += !NodeOf(admin, ns, "p-" + std::to_string(i)).empty();
        return bound == 8;
      },
      std::chrono::seconds(60)))
      << process.Log();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  int on_faulty = 0;
  for (int i = 0; i < 10; ++i) on_faulty += NodeOf(admin, ns, "p-" + std::to_string(i)) == faulty;
  EXPECT_EQ(on_faulty, 0);
  // Ten GPUs asked for, the healthy node's 8 to be had: the fair share is 8.
  EXPECT_TRUE(
      WaitFor([&] { return FairShareGpus(admin, "nh-team") == "8"; }, std::chrono::seconds(20)))
      << FairShareGpus(admin, "nh-team");

  // The fault clears; the agent reports one GPU of that node unhealthy instead: the two pending
  // pods land there, and the fair share is the 10 GPUs asked for (15 healthy).
  const json health = {
      {"metadata",
       {{"annotations",
         {{"quotient.dev/gpu-health",
           R"({"unhealthy":[{"uuid":"GPU-3","index":3,"reason":"RowRemapPending"}]})"}}}}}};
  ASSERT_TRUE(admin.Patch(Nodes(), "", faulty, kubeclient::PatchType::kMerge, health.dump()).ok());
  SetCondition(admin, faulty, "GpuXidFatal", "False", "GpuHealthy");
  EXPECT_TRUE(WaitFor(
      [&] {
        int there = 0;
        for (int i = 0; i < 10; ++i) there += NodeOf(admin, ns, "p-" + std::to_string(i)) == faulty;
        return there == 2;
      },
      std::chrono::seconds(60)))
      << process.Log();
  EXPECT_TRUE(
      WaitFor([&] { return FairShareGpus(admin, "nh-team") == "10"; }, std::chrono::seconds(20)))
      << FairShareGpus(admin, "nh-team");
  // Seven healthy GPUs there, two taken: a 5-GPU pod fills the node, and one more GPU is
  // nowhere to be had (the eighth is the unhealthy one).
  ASSERT_TRUE(admin.Create(Pods(), ns, GpuPod("five", scheduler, "nh-team", 5)).ok());
  EXPECT_TRUE(
      WaitFor([&] { return NodeOf(admin, ns, "five") == faulty; }, std::chrono::seconds(30)));
  ASSERT_TRUE(admin.Create(Pods(), ns, GpuPod("one-more", scheduler, "nh-team", 1)).ok());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeOf(admin, ns, "one-more"), "") << "the unhealthy GPU was given out";
  // Sixteen GPUs asked for, fifteen healthy: the share stops at 15 (16 would count the
  // unhealthy GPU).
  EXPECT_TRUE(
      WaitFor([&] { return FairShareGpus(admin, "nh-team") == "15"; }, std::chrono::seconds(20)))
      << FairShareGpus(admin, "nh-team");
}

}  // namespace
}  // namespace quotient::k8s_integration
