// `kubectl quotient` (the binary run as kubectl-quotient) against the real API server: queues,
// why, top, snapshot (read back by `quotient schedule`, with no secret in it) and what-if on a
// small cluster; and the failures a person meets first: no kubeconfig, a user RBAC refuses, an API
// server without KAI's CRDs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"
#include "harness_process.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Pods;
using nlohmann::json;

std::string Plugin() {
  return std::filesystem::path(QUOTIENT_BINARY).parent_path() / "kubectl-quotient";
}

CommandResult Kubectl(const std::vector<std::string>& args, const std::string& kubeconfig) {
  std::vector<std::string> command = {Plugin()};
  command.insert(command.end(), args.begin(), args.end());
  return RunCommand(command, {"KUBECONFIG=" + kubeconfig, "NO_COLOR="});
}

json QueueJsonWithParent(const std::string& name, int quota, const std::string& parent) {
  json q = QueueJson(name, quota);
  if (!parent.empty()) q["spec"]["parentQueue"] = parent;
  return q;
}

// <p>-dept with <p>-a and <p>-b (4 GPUs deserved each); <p>-b runs 6 GPUs on <p>-gpu-1; <p>-a
// waits with a 10-GPU pod no 8-GPU node holds. The pods' scheduler runs nowhere: the plugin's
// answers are its own.
class PluginE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Each test its own names: a namespace deleted by the previous test may still hold its pods.
    static int count = 0;
    p_ = "plg" + std::to_string(count++);
    cluster_ = std::make_unique<TwoNodeCluster>(p_, std::vector<std::pair<std::string, int>>{});
    kubeclient::Client& admin = *cluster_->admin;
    for (const auto& [name, quota, parent] : std::vector<std::tuple<std::string, int, std::string>>{
             {p_ + "-dept", -1, ""}, {p_ + "-a", 4, p_ + "-dept"}, {p_ + "-b", 4, p_ + "-dept"}}) {
      ASSERT_TRUE(admin
                      .Create(kubeclient::resources::Queues(), "",
                              QueueJsonWithParent(name, quota, parent).dump())
                      .ok());
      cluster_->queues.push_back(name);
    }
    json running = json::parse(GpuPod("b-0", kScheduler, p_ + "-b", 6));
    running["spec"]["nodeName"] = cluster_->nodes[0];
    running["spec"]["containers"][0]["env"] = {{{"name", "PASSWORD"}, {"value", "s3cr3t"}}};
    ASSERT_TRUE(admin.Create(Pods(), cluster_->ns, running.dump()).ok());
    ASSERT_TRUE(admin.Create(Pods(), cluster_->ns, GpuPod("a-0", kScheduler, p_ + "-a", 10)).ok());
    dir_ = Harness().data_dir() + "/plugin-" + cluster_->ns;
    std::filesystem::create_directories(dir_);
  }

  static constexpr char kScheduler[] = "quotient-plg";
  std::string p_;  // the test's prefix
  std::unique_ptr<TwoNodeCluster> cluster_;
  std::string dir_;
};

const json* Find(const json& list, const std::string& name) {
  for (const json& item : list) {
    if (item.value("name", "") == name) return &item;
  }
  return nullptr;
}

TEST_F(PluginE2ETest, QueuesShowTheTreeTheNumbersAndWhoBorrows) {
  CommandResult r = Kubectl({"queues", "--scheduler-name", kScheduler, "-o", "json"},
                            Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  const json* b = Find(doc["queues"], p_ + "-b");
  ASSERT_NE(b, nullptr) << r.output;
  EXPECT_EQ((*b)["parent"], p_ + "-dept");
  EXPECT_EQ((*b)["depth"], 1);
  EXPECT_EQ((*b)["gpu"]["deserved"], "4");
  EXPECT_EQ((*b)["gpu"]["allocated"], "6");
  EXPECT_EQ((*b)["gpu"]["borrowing"], "2");
  EXPECT_EQ((*Find(doc["queues"], p_ + "-a"))["gpu"]["requested"], "10");
  bool borrows = false;
  for (const json& line : doc["borrowing"]) {
    borrows |=
        line.get<std::string>().starts_with("under " + p_ + "-dept: " + p_ + "-b borrows 2 GPUs");
  }
  EXPECT_TRUE(borrows) << doc["borrowing"].dump();

  // The table: indented children, and no colour when stdout is not a terminal.
  r = Kubectl({"queues", "--scheduler-name", kScheduler, "--resource", "gpu"},
              Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\n  " + p_ + "-b "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\033'), std::string::npos);
}

TEST_F(PluginE2ETest, WhySaysWhatWouldFitThePodAndTopCountsTheGpus) {
  CommandResult r = Kubectl({"why", "a-0", "-n", cluster_->ns, "--scheduler-name", kScheduler},
                            Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("status:     Pending"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fits if 10 GPUs free on one node"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("queue " + p_ + "-a is"), std::string::npos) << r.output;

  r = Kubectl({"top", "--scheduler-name", kScheduler, "-o", "json"}, Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json top = json::parse(r.output);
  const json* busy = Find(top["nodes"], cluster_->nodes[0]);
  ASSERT_NE(busy, nullptr);
  EXPECT_EQ((*busy)["used"], "6");
  EXPECT_EQ((*busy)["free"], "2");
  EXPECT_EQ((*busy)["byQueue"][p_ + "-b"], "6");
  EXPECT_EQ((*Find(top["nodes"], cluster_->nodes[1]))["free"], "8");
  EXPECT_EQ((*Find(top["queues"], p_ + "-a"))["pendingPods"], 1);

  r = Kubectl({"why", "nope", "-n", cluster_->ns}, Harness().admin_kubeconfig());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no pod or PodGroup " + cluster_->ns + "/nope"), std::string::npos)
      << r.output;
}

TEST_F(PluginE2ETest, ASnapshotHasNoSecretsAndReplaysOffline) {
  const std::string file = dir_ + "/snapshot.yaml";
  CommandResult r = Kubectl({"snapshot", "-o", file}, Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << "env values must not be captured";
  EXPECT_NE(text.find("b-0"), std::string::npos);
  // `quotient schedule` reads it, and sees the same pending pod.
  r = RunCommand({QUOTIENT_BINARY, "schedule", "--scheduler-name", kScheduler, "-o", "json", file});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json report = json::parse(r.output.substr(r.output.find('{')));
  bool pending = false;
  for (const json& p : report["pods"]) {
    pending |= p.value("pod", "") == cluster_->ns + "/a-0" && p.value("status", "") == "Pending";
  }
  EXPECT_TRUE(pending) << r.output.substr(0, 2000);
  // `quotient simulate` replays it.
  r = RunCommand(
      {QUOTIENT_BINARY, "simulate", "--scheduler-name", kScheduler, "--until", "10m", file});
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  // The other commands read it too (--from), without the cluster.
  r = Kubectl({"top", "--from", file, "--scheduler-name", kScheduler, "-o", "json"},
              "/nonexistent/kubeconfig");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ((*Find(json::parse(r.output)["nodes"], cluster_->nodes[0]))["used"], "6");
}

TEST_F(PluginE2ETest, WhatIfShowsTheCycleAProposedNodeWouldRun) {
  const std::string changes = dir_ + "/changes.yaml";
  json node = json::parse(FakeNodeJson(p_ + "-big"));
  node["status"]["allocatable"]["nvidia.com/gpu"] = "16";
  node["status"]["capacity"]["nvidia.com/gpu"] = "16";
  std::ofstream(changes) << node.dump();
  CommandResult r = Kubectl({"what-if", changes, "--scheduler-name", kScheduler, "-o", "json"},
                            Harness().admin_kubeconfig());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  bool bound = false;
  for (const json& d : doc["decisions"]) {
    bound |= d["pod"] == cluster_->ns + "/a-0" && d["kind"] == "bind" && d["node"] == p_ + "-big";
  }
  EXPECT_TRUE(bound) << r.output;
  EXPECT_EQ((*Find(doc["queues"], p_ + "-a"))["allocatedGpusAfter"], "10");
  // Nothing was created: what-if only reads.
  EXPECT_FALSE(cluster_->admin->Get(kubeclient::resources::Nodes(), "", p_ + "-big").ok());
}

TEST(PluginFailureTest, NoKubeconfigIsSaidPlainly) {
  CommandResult r = RunCommand({Plugin(), "queues"},
                               {"KUBECONFIG=/nonexistent/config", "HOME=/nonexistent-home"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no cluster to talk to"), std::string::npos) << r.output;
}

TEST(PluginFailureTest, AUserWithoutPermissionsIsToldWhichAreNeeded) {
  auto admin = AdminClient();
  const std::string ns = CreateNamespace(*admin, "plg-rbac");
  const kubeclient::Resource accounts{"", "v1", "serviceaccounts", true};
  ASSERT_TRUE(
      admin
          ->Create(accounts, ns,
                   R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"nobody"}})")
          .ok());
  auto token = admin->Send(
      {"POST", accounts.Path(ns, "nobody", "token"),
       R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":600}})",
       "application/json"});
  ASSERT_TRUE(token.ok()) << token.error().Describe();
  const std::string dir = Harness().data_dir() + "/plugin-rbac";
  std::filesystem::create_directories(dir);
  kubeclient::ConnectionConfig connection = AdminConnection();
  std::ofstream(dir + "/ca.crt") << connection.ca_pem;
  const std::string kubeconfig = dir + "/nobody.kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: nobody\n"
                               "clusters:\n- name: harness\n  cluster:\n    server: "
                            << connection.server << "\n    certificate-authority: " << dir
                            << "/ca.crt\nusers:\n- name: nobody\n  user:\n    token: "
                            << json::parse(token->body)["status"]["token"].get<std::string>()
                            << "\ncontexts:\n- name: nobody\n  context:\n    cluster: harness\n"
                               "    user: nobody\n";
  CommandResult r = Kubectl({"top"}, kubeconfig);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not allowed to list nodes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs get and list on nodes, pods"), std::string::npos) << r.output;
  EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
}

// A second API server, started without KAI's CRDs.
TEST(PluginFailureTest, AClusterWithoutTheCrdsIsToldToInstallThem) {
  const std::string dir = Harness().data_dir() + "/plugin-no-crds";
  std::filesystem::create_directories(dir + "/crds");
  std::filesystem::create_directories(dir + "/data");
  HarnessProcess bare(QUOTIENT_K8S_HARNESS, dir + "/crds", dir + "/data", {});
  Status started = bare.Start();
  ASSERT_TRUE(started.ok()) << started.message();
  CommandResult r = Kubectl({"queues"}, bare.admin_kubeconfig());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("does not serve queues.scheduling.run.ai"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("CustomResourceDefinition is not installed"), std::string::npos);
  (void)bare.Stop();
}

}  // namespace
}  // namespace quotient::k8s_integration
