// What the end-to-end tests share: Quotient's binaries as child processes against the harness,
// GPU pods, queues, and a namespace with two fake 8-GPU nodes.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"
#include "cluster.h"

namespace quotient::k8s_integration {

// The scheduler binary as a child process, its log in the harness's data folder.
class SchedulerProcess {
 public:
  // `replica` names the log file; `extra` flags are appended (e.g. --leader-elect).
  explicit SchedulerProcess(const std::string& name, const std::string& replica = "",
                            const std::vector<std::string>& extra = {})
      : log_(Harness().data_dir() + "/scheduler-" + name + replica + ".log"),
        process_(Arguments(name, extra), false, log_) {
    EXPECT_TRUE(process_.started());
  }
  void Signal(int sig) { process_.Stop(sig); }
  std::string Log() const {
    std::ifstream in(log_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  bool LogContains(const std::string& text) const { return Log().find(text) != std::string::npos; }
  // The port of its /healthz, /readyz and /metrics, from its log (0 until it says).
  int OpsPort() const {
    const std::string log = Log();
    const std::string marker = "/metrics on port ";
    auto at = log.find(marker);
    return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + marker.size());
  }

 private:
  static std::vector<std::string> Arguments(const std::string& name,
                                            const std::vector<std::string>& extra) {
    // Several schedulers run at once: each serves its ops endpoints on a port of its own.
    std::vector<std::string> args = {
        QUOTIENT_BINARY,    "scheduler", "--kubeconfig",     Harness().admin_kubeconfig(),
        "--scheduler-name", name,        "--listen-address", "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::string log_;
  ChildProcess process_;
};

inline std::string GpuPod(const std::string& name, const std::string& scheduler,
                          const std::string& queue, int gpus, const std::string& pod_group = "") {
  nlohmann::json pod =
      nlohmann::json::parse(PodJson(name, R"({"kai.scheduler/queue":")" + queue + R"("})"));
  pod["spec"]["schedulerName"] = scheduler;
  pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  if (!pod_group.empty()) pod["metadata"]["annotations"]["pod-group-name"] = pod_group;
  return pod.dump();
}

inline std::string NodeOf(kubeclient::Client& client, const std::string& ns,
                          const std::string& pod) {
  auto p = client.Get(kubeclient::resources::Pods(), ns, pod);
  return p.ok() ? JsonField(p->json, "spec.nodeName") : "";
}

// A queue with `gpu_quota` GPUs (-1 = unlimited) and unlimited CPU and memory.
inline nlohmann::json QueueJson(const std::string& name, int gpu_quota) {
  return {{"apiVersion", "scheduling.run.ai/v2"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"resources",
             {{"gpu", {{"quota", gpu_quota}, {"limit", -1}, {"overQuotaWeight", 1}}},
              {"cpu", {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}}},
              {"memory", {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}}}}}}}};
}

// What each test schedules on: its own namespace, two fake 8-GPU nodes <prefix>-gpu-1 and -2
// (waited for until Ready) and its queues; all removed again when the test ends.
struct TwoNodeCluster {
  std::unique_ptr<kubeclient::Client> admin = AdminClient();
  std::string ns;
  std::vector<std::string> nodes;
  std::vector<std::string> queues;

  TwoNodeCluster(const std::string& prefix,
                 const std::vector<std::pair<std::string, int>>& queue_quotas)
      : ns(CreateNamespace(*admin, prefix)), nodes{prefix + "-gpu-1", prefix + "-gpu-2"} {
    for (const std::string& node : nodes) {
      EXPECT_TRUE(admin->Create(kubeclient::resources::Nodes(), "", FakeNodeJson(node)).ok())
          << node;
      EXPECT_TRUE(WaitFor(
          [&] {
            auto n = admin->Get(kubeclient::resources::Nodes(), "", node);
            return n.ok() && n->json.find(R"("type":"Ready","status":"True")") != std::string::npos;
          },
          std::chrono::seconds(30)))
          << node << " never became Ready";
    }
    for (const auto& [queue, quota] : queue_quotas) {
      EXPECT_TRUE(
          admin->Create(kubeclient::resources::Queues(), "", QueueJson(queue, quota).dump()).ok())
          << queue;
      queues.push_back(queue);
    }
  }
  ~TwoNodeCluster() {
    EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
    for (const std::string& q : queues)
      EXPECT_TRUE(admin->Delete(kubeclient::resources::Queues(), "", q).ok());
    for (const std::string& n : nodes)
      EXPECT_TRUE(admin->Delete(kubeclient::resources::Nodes(), "", n).ok());
  }
};

// `quotient podgrouper` as a child process, regrouping every second, its log in the harness's
// data folder.
class PodGrouperProcess {
 public:
  explicit PodGrouperProcess(const std::string& scheduler_name)
      : log_(Harness().data_dir() + "/podgrouper-" + scheduler_name + ".log"),
        process_(
            {QUOTIENT_BINARY, "podgrouper", "--kubeconfig", Harness().admin_kubeconfig(),
             "--scheduler-name", scheduler_name, "--resync-period", "1s", "--log-level", "debug"},
            false, log_) {
    EXPECT_TRUE(process_.started());
  }
  std::string Log() const {
    std::ifstream in(log_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  std::string log_;
  ChildProcess process_;
};

// `quotient webhook` as a child process on a free port of 127.0.0.1, serving the certificate in
// `certificate_file` / `key_file`; its log in the harness's data folder.
class WebhookProcess {
 public:
  WebhookProcess(const std::string& name, const std::string& certificate_file,
                 const std::string& key_file, const std::vector<std::string>& extra = {})
      : log_(Harness().data_dir() + "/webhook-" + name + ".log"),
        process_(Arguments(certificate_file, key_file, extra), false, log_) {
    EXPECT_TRUE(process_.started());
  }
  // The port it serves on, from its log; 0 if it has not said within `timeout`.
  int Port(std::chrono::milliseconds timeout = std::chrono::seconds(20)) const {
    int port = 0;
    WaitFor(
        [&] {
          std::ifstream in(log_);
          const std::string log((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
          const std::string marker = " on port ";
          auto at = log.find(marker);
          if (at != std::string::npos) port = std::atoi(log.c_str() + at + marker.size());
          return port > 0;
        },
        timeout);
    return port;
  }
  void Signal(int sig) { process_.Stop(sig); }

 private:
  static std::vector<std::string> Arguments(const std::string& certificate_file,
                                            const std::string& key_file,
                                            const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        QUOTIENT_BINARY,   "webhook",        "--listen-address",       "127.0.0.1:0",
        "--tls-cert-file", certificate_file, "--tls-private-key-file", key_file};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::string log_;
  ChildProcess process_;
};

}  // namespace quotient::k8s_integration
