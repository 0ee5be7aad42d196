#include "cli/service_common.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>

#include "kubeclient/client_factory.h"
#include "telemetry/logging.h"

namespace quotient::cli {

bool ServeOps(std::optional<telemetry::OpsServer>& ops, const std::string& listen_address,
              telemetry::OpsServer::ReadinessCheck readiness, prometheus::Registry& registry,
              const std::function<Status(telemetry::OpsServer&)>& add_routes) {
  if (listen_address.empty()) return true;
  ops.emplace(listen_address, std::move(readiness), registry);
  if (add_routes) {
    if (Status added = add_routes(*ops); !added.ok()) {
      spdlog::error("{}", added.message());
      return false;
    }
  }
  if (Status started = ops->Start(); !started.ok()) {
    spdlog::error("--listen-address: {}", started.message());
    return false;
  }
  spdlog::info("serving /healthz, /readyz and /metrics on port {}", ops->Port());
  return true;
}

int RunLeading(kubeclient::Client& client,
               const std::optional<kubeclient::LeaderElectionConfig>& election,
               std::stop_token stop, const std::function<void(std::stop_token)>& work) {
  if (!election) {
    work(stop);
    return 0;
  }
  kubeclient::LeaderElector elector(client, *election);
  spdlog::info("campaigning for lease {}/{} as {}", election->namespace_name, election->lease_name,
               election->identity);
  const bool clean = elector.Run(stop, [&](std::stop_token leading) {
    spdlog::info("leading");
    work(leading);
  });
  if (!clean) {
    spdlog::error("lost the leader lease; exiting");
    return 1;
  }
  return 0;
}

// "<host>_<random hex>", unique per replica as client-go's leader election expects.
std::string LeaderIdentity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  return std::string(host) + "_" + suffix;
}

namespace {

std::atomic<bool> g_terminate{false};
void OnTerminate(int) { g_terminate = true; }

}  // namespace

std::optional<int> StartLogging(const std::string& command, const std::string& format,
                                const std::string& level) {
  if (Status logging = telemetry::ConfigureLogging(format, level); !logging.ok()) {
    std::fprintf(stderr, "quotient %s: %s\n", command.c_str(), logging.message().c_str());
    return 2;
  }
  return std::nullopt;
}

std::unique_ptr<kubeclient::Client> ConnectToCluster(const std::string& kubeconfig,
                                                     const std::string& context, int64_t qps,
                                                     int burst) {
  Result<kubeclient::ConnectionConfig> connection =
      kubeclient::LoadConnectionConfig(kubeconfig, context);
  if (!connection.ok()) {
    spdlog::error("{}", connection.message());
    return nullptr;
  }
  kubeclient::ClientConfig client_config;
  client_config.qps = qps;
  client_config.burst = burst;
  return kubeclient::MakeClient(*connection, client_config);
}

StopOnSignal::StopOnSignal() {
  g_terminate = false;
  signal(SIGTERM, OnTerminate);
  signal(SIGINT, OnTerminate);
  watcher_ = std::thread([this] {
    while (!g_terminate) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    spdlog::info("terminating");
    stop_.request_stop();
  });
}

void StopOnSignal::Wait() const {
  std::mutex mu;
  std::condition_variable_any wake;
  std::unique_lock lock(mu);
  wake.wait(lock, token(), [] { return false; });
}

StopOnSignal::~StopOnSignal() {
  g_terminate = true;
  watcher_.join();
}

}  // namespace quotient::cli
