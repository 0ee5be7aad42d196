#include "cli/service_common.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include "kubeclient/client_factory.h"
#include "telemetry/logging.h"

namespace quotient::cli {

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
