// The scheduler's operations endpoints on one small HTTP server (civetweb), as Kubernetes
// probes and Prometheus expect them:
//   GET /healthz  200 "ok" while the process serves at all (liveness)
//   GET /readyz   200 "ok", or 503 with the readiness callback's reason (readiness)
//   GET /metrics  the metrics in Prometheus text format 0.0.4
//   GET <route>   what a route added with AddRoute answers (the scheduler's dashboard)
//   anything else 404; a known path with a method other than GET or HEAD 405.
//
// Thread safety: AddRoute, Start, Stop and the destructor belong to one owning thread. The
// readiness, metrics and route callbacks run on the server's worker threads (two of them,
// possibly at once), so they must be safe to call concurrently with the rest of the program;
// prometheus::Registry is.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

struct mg_connection;
struct mg_context;

namespace prometheus {
class Registry;
}

namespace quotient::telemetry {

class OpsServer {
 public:
  // {ready, reason}; the reason is the 503 body when not ready.
  using ReadinessCheck = std::function<std::pair<bool, std::string>()>;
  // The whole /metrics body, already in text format 0.0.4.
  using MetricsText = std::function<std::string()>;

  // What a route answers to GET (HEAD: the same headers, no body).
  struct Reply {
    int status = 200;
    std::string body;
  };
  // An extra path: its content type, headers beyond Content-Type and Content-Length (e.g.
  // Cache-Control), and the callback that makes each answer.
  struct Route {
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::function<Reply()> reply;
  };

  // `listen_address` is the flag value in KAI's "host:port" form (":8080", "127.0.0.1:0"); it is
  // checked by Start. An empty `readiness` means always ready.
  OpsServer(std::string listen_address, ReadinessCheck readiness, MetricsText metrics);
  // Serves `registry` (which must outlive the server) at /metrics.
  OpsServer(std::string listen_address, ReadinessCheck readiness, prometheus::Registry& registry);
  ~OpsServer();

  OpsServer(const OpsServer&) = delete;
  OpsServer& operator=(const OpsServer&) = delete;

  // Serves `route` at `path` (exactly; no prefix matching). Before Start only; fails on a path
  // taken already (the three built-in ones included), one that does not start with '/', or a
  // server that serves already.
  Status AddRoute(const std::string& path, Route route);

  // Binds and starts serving. Fails, naming the address, on a malformed address, a port in use
  // or a second Start.
  Status Start();
  // The port actually bound (the kernel's choice for port 0); 0 before Start or after Stop.
  int Port() const { return port_; }
  // Stops accepting, finishes requests in flight and joins the threads; safe to call twice.
  void Stop();

 private:
  static int HandleRequest(mg_connection* connection);
  static int LogCivetwebMessage(const mg_connection* connection, const char* message);
  int Serve(mg_connection* connection) const;

  std::string listen_address_;
  ReadinessCheck readiness_;
  MetricsText metrics_;
  std::map<std::string, Route, std::less<>> routes_;  // fixed once Start has run
  mg_context* context_ = nullptr;
  std::string host_;  // as bound, for Stop to reach the listening socket
  int port_ = 0;
};

// The registry's metrics in Prometheus text format 0.0.4.
std::string SerializeMetrics(const prometheus::Registry& registry);

}  // namespace quotient::telemetry
