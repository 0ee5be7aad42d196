// `quotient node-agent` against the real API server, on a fake node: the binary runs with the
// fake libnvidia-ml.so.1, a kernel log file and an empty sysfs the test controls (the node has no
// GPU to observe), publishes its eight conditions beside the node simulator's, turns a fatal XID
// into GpuXidFatal=True, keeps it across a restart, and the scheduler then keeps pods away.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Nodes;
using nlohmann::json;

class AgentProcess {
 public:
  AgentProcess(const std::string& node, const std::string& dir)
      : process_({"/usr/bin/env",    "FAKE_NVML_UUIDS=GPU-a,GPU-b",
                  QUOTIENT_BINARY,   "node-agent",
                  "--node-name",     node,
                  "--kubeconfig",    Harness().admin_kubeconfig(),
                  "--nvml-library",  QUOTIENT_FAKE_NVML,
                  "--kmsg",          dir + "/kmsg",
                  "--sysfs-root",    dir + "/sys",
                  "--state-file",    dir + "/state.json",
                  "--boot-id-path",  dir + "/boot_id",
                  "--poll-interval", "1s",
                  "--expected-gpus", "2"},
                 false, Harness().data_dir() + "/node-agent-" + node + ".log") {
    EXPECT_TRUE(process_.started());
  }

 private:
  ChildProcess process_;
};

// type -> {status, reason}, of the Node as the API server has it.
std::map<std::string, std::pair<std::string, std::string>> Conditions(kubeclient::Client& admin,
                                                                      const std::string& node) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  auto n = admin.Get(Nodes(), "", node);
  if (!n.ok()) return out;
  for (const json& c : json::parse(n->json)["status"].value("conditions", json::array())) {
    out[c.value("type", "")] = {c.value("status", ""), c.value("reason", "")};
  }
  return out;
}

TEST(NodeAgentE2ETest, PublishesItsConditionsBesideTheKubeletsAndAFatalXidSticksAcrossRestarts) {
  TwoNodeCluster cluster("na", {{"na-team", -1}});
  kubeclient::Client& admin = *cluster.admin;
  const std::string node = cluster.nodes[0];
  const std::string dir = Harness().data_dir() + "/node-agent-" + node;
  std::filesystem::create_directories(dir + "/sys");
  std::ofstream(dir + "/boot_id") << "boot-1\n";
  std::ofstream(dir + "/kmsg") << "";
  {
    AgentProcess agent(node, dir);
    ASSERT_TRUE(WaitFor([&] { return Conditions(admin, node).count("GpuXidFatal") > 0; },
                        std::chrono::seconds(30)));
    auto conditions = Conditions(admin, node);
    for (const char* type :
         {"GpuXidFatal", "GpuLost", "GpuMemoryDegraded", "GpuNvlinkDegraded", "GpuPcieDegraded",
          "IbPortDegraded", "GpuDriverUnresponsive", "GpuRemediationRequired"}) {
      EXPECT_EQ(conditions[type].first, "False") << type << " " << conditions[type].second;
    }
    EXPECT_EQ(conditions["Ready"].first, "True") << "the node simulator's condition was lost";

    std::ofstream(dir + "/kmsg", std::ios::app)
        << "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n";
    ASSERT_TRUE(WaitFor(
        [&] {
          return Conditions(admin, node)["GpuXidFatal"] ==
                 std::make_pair(std::string("True"), std::string("Xid79"));
        },
        std::chrono::seconds(30)));
    auto n = admin.Get(Nodes(), "", node);
    ASSERT_TRUE(n.ok());
    const std::string health =
        json::parse(n->json)["metadata"]["annotations"].value("quotient.dev/gpu-health", "");
    EXPECT_NE(health.find("GPU-a"), std::string::npos) << health;
  }
  // Restarted: the fault is read from the saved state, not lost (and not turned False).
  AgentProcess again(node, dir);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(Conditions(admin, node)["GpuXidFatal"].first, "True");

  // The scheduler keeps a pod off the faulty node.
  const std::string scheduler = "quotient-na";
  SchedulerProcess process(scheduler);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(admin
                    .Create(kubeclient::resources::Pods(), cluster.ns,
                            GpuPod("p-" + std::to_string(i), scheduler, "na-team", 1))
                    .ok());
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        for (int i = 0; i < 3; ++i) {
          if (NodeOf(admin, cluster.ns, "p-" + std::to_string(i)).empty()) return false;
        }
        return true;
      },
      std::chrono::seconds(30)));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(NodeOf(admin, cluster.ns, "p-" + std::to_string(i)), cluster.nodes[1]);
  }
}

}  // namespace
}  // namespace quotient::k8s_integration
