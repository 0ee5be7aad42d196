// What the cluster services (`scheduler`, `podgrouper`) share at start-up: logging, the
// connection to the API server, and stopping on SIGTERM/SIGINT.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "kubeclient/client.h"

namespace quotient::cli {

// Configures spdlog; on a bad format or level prints why as "quotient <command>: ..." and returns
// the usage exit code.
std::optional<int> StartLogging(const std::string& command, const std::string& format,
                                const std::string& level);

// A client for the kubeconfig (or in-cluster) connection, rate-limited to `qps`/`burst`; nullptr,
// with the reason logged, when there is no usable connection.
std::unique_ptr<kubeclient::Client> ConnectToCluster(const std::string& kubeconfig,
                                                     const std::string& context, int64_t qps,
                                                     int burst);

// Requests a stop on `stop()` when SIGTERM or SIGINT arrives; joins its watcher when destroyed.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  std::stop_token token() const { return stop_.get_token(); }
  // Blocks until the signal arrives (for commands whose work runs on other threads).
  void Wait() const;

 private:
  std::stop_source stop_;
  std::thread watcher_;
};

}  // namespace quotient::cli
