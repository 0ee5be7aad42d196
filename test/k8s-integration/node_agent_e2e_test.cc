// `quotient node-agent` against the real API server, on a fake node: the binary runs with the
// fake libnvidia-ml.so.1, a kernel log file and an empty sysfs the test controls (the node has no
// GPU to observe), publishes its eight conditions beside the node simulator's, turns a fatal XID
// into GpuXidFatal=True, keeps it across a restart, the scheduler then keeps pods away, and a
// passed validation (the remediator's record on the Node) clears it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/time_text.h"
#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Nodes;
using nlohmann::json;

class AgentProcess {
 public:
  AgentProcess(const std::string& node, const std::string& dir,
               const std::vector<std::string>& extra = {"--expected-gpus", "2"})
      : process_(Arguments(node, dir, extra), false,
                 Harness().data_dir() + "/node-agent-" + node + ".log") {
    EXPECT_TRUE(process_.started());
  }

 private:
  static std::vector<std::string> Arguments(const std::string& node, const std::string& dir,
                                            const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"/usr/bin/env",    "FAKE_NVML_UUIDS=GPU-a,GPU-b",
                                     QUOTIENT_BINARY,   "node-agent",
                                     "--node-name",     node,
                                     "--kubeconfig",    Harness().admin_kubeconfig(),
                                     "--nvml-library",  QUOTIENT_FAKE_NVML,
                                     "--kmsg",          dir + "/kmsg",
                                     "--sysfs-root",    dir + "/sys",
                                     "--state-file",    dir + "/state.json",
                                     "--boot-id-path",  dir + "/boot_id",
                                     "--poll-interval", "1s"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
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
    // The per-GPU annotation follows the conditions in a second patch.
    std::string health;
    EXPECT_TRUE(WaitFor(
        [&] {
          auto n = admin.Get(Nodes(), "", node);
          if (!n.ok()) return false;
          health = json::parse(n->json)["metadata"]
                       .value("annotations", json::object())
                       .value("quotient.dev/gpu-health", "");
          return health.find("GPU-a") != std::string::npos;
        },
        std::chrono::seconds(10)))
        << health;
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

  // A sticky XID clears only when the node is validated: the remediator records a passed
  // validation as the hold-down's start, and the agent, reading it, lets the fault go.
  const std::string record =
      json{{"state", "validating"},
           {"incident", "20260101-000000"},
           {"holdDownSince", core::FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now()))}}
          .dump();
  const json patch = {{"metadata", {{"annotations", {{"quotient.dev/remediation", record}}}}}};
  ASSERT_TRUE(admin.Patch(Nodes(), "", node, kubeclient::PatchType::kMerge, patch.dump()).ok());
  EXPECT_TRUE(WaitFor([&] { return Conditions(admin, node)["GpuXidFatal"].first == "False"; },
                      std::chrono::seconds(30)))
      << "a validated node keeps its sticky XID";
}

// Without --expected-gpus the agent takes the count from GPU feature discovery's node label: a
// node labelled for 3 GPUs whose NVML sees 2 has lost one.
TEST(NodeAgentE2ETest, TheExpectedGpuCountComesFromTheNodeLabel) {
  TwoNodeCluster cluster("nal", {});
  kubeclient::Client& admin = *cluster.admin;
  const std::string node = cluster.nodes[0];
  const json label = {{"metadata", {{"labels", {{"nvidia.com/gpu.count", "3"}}}}}};
  ASSERT_TRUE(admin.Patch(Nodes(), "", node, kubeclient::PatchType::kMerge, label.dump()).ok());
  const std::string dir = Harness().data_dir() + "/node-agent-" + node;
  std::filesystem::create_directories(dir + "/sys");
  std::ofstream(dir + "/boot_id") << "boot-1\n";
  std::ofstream(dir + "/kmsg") << "";
  AgentProcess agent(node, dir, {});
  EXPECT_TRUE(WaitFor(
      [&] {
        return Conditions(admin, node)["GpuLost"] ==
               std::make_pair(std::string("True"), std::string("GpuCountMismatch"));
      },
      std::chrono::seconds(30)))
      << Conditions(admin, node)["GpuLost"].first << " "
      << Conditions(admin, node)["GpuLost"].second;
}

}  // namespace
}  // namespace quotient::k8s_integration
