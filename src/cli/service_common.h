// What the cluster services (`scheduler`, `podgrouper`, `remediator`, ...) share at start-up:
// logging, the connection to the API server, the ops endpoints, leader election, and stopping on
// SIGTERM/SIGINT.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "kubeclient/client.h"
#include "kubeclient/leader_election.h"
#include "telemetry/ops_server.h"

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

// Who this replica is in a Lease: the host name and a random suffix, unique per process.
std::string LeaderIdentity();

// Serves /healthz, /readyz and /metrics (from `registry`, which must outlive it) on
// `listen_address` into `ops`; "" serves nothing. `add_routes`, when given, adds more paths
// before the server starts. False, with the reason logged, when it cannot.
bool ServeOps(std::optional<telemetry::OpsServer>& ops, const std::string& listen_address,
              telemetry::OpsServer::ReadinessCheck readiness, prometheus::Registry& registry,
              const std::function<Status(telemetry::OpsServer&)>& add_routes = {});

// Runs `work` until `stop`: at once, or with `election` only while this replica holds the Lease.
// Returns the exit code: 1 when the lease was lost (another replica may be acting already, so
// the process should restart as a follower with fresh caches rather than act on stale ones).
int RunLeading(kubeclient::Client& client,
               const std::optional<kubeclient::LeaderElectionConfig>& election,
               std::stop_token stop, const std::function<void(std::stop_token)>& work);

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
