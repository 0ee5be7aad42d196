#include "telemetry/ops_server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <string_view>
#include <thread>
#include <vector>

#include "telemetry/listen_address.h"

namespace quotient::telemetry {
namespace {

// Two workers: a probe and a scrape can be answered at once, and nothing here is slow enough
// to want more. A client that stalls is dropped after the request timeout so that it cannot
// hold a worker (and with it the kubelet's probes) for long.
constexpr const char* kWorkerThreads = "2";
constexpr const char* kRequestTimeoutMs = "10000";

constexpr std::string_view kPlainText = "text/plain; charset=utf-8";
constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

struct Response {
  int status = 200;
  std::string_view content_type = kPlainText;
  std::string body;
  bool allow_header = false;  // 405 says which methods the path does take
  // A route's own headers (owned by the route, which outlives the request); null for none.
  const std::vector<std::pair<std::string, std::string>>* headers = nullptr;
};

constexpr std::array<std::string_view, 3> kBuiltInPaths = {"/healthz", "/readyz", "/metrics"};
bool IsBuiltIn(std::string_view path) {
  return std::find(kBuiltInPaths.begin(), kBuiltInPaths.end(), path) != kBuiltInPaths.end();
}

// civetweb keeps process-wide state (mg_init_library). Initialised once, explicitly, and never
// torn down: several servers may run at once (the tests start a few), and the implicit
// initialisation inside mg_start2 is documented to leak.
void InitCivetwebOnce() { [[maybe_unused]] static const unsigned features = mg_init_library(0); }

void Send(mg_connection* connection, const Response& response, bool head_only) {
  std::string length = std::to_string(response.body.size());
  mg_response_header_start(connection, response.status);
  mg_response_header_add(connection, "Content-Type", response.content_type.data(),
                         static_cast<int>(response.content_type.size()));
  mg_response_header_add(connection, "Content-Length", length.c_str(), -1);
  if (response.allow_header) mg_response_header_add(connection, "Allow", "GET, HEAD", -1);
  if (response.headers != nullptr) {
    for (const auto& [name, value] : *response.headers) {
      mg_response_header_add(connection, name.c_str(), value.c_str(),
                             static_cast<int>(value.size()));
    }
  }
  mg_response_header_send(connection);
  if (!head_only && !response.body.empty()) {
    mg_write(connection, response.body.data(), response.body.size());
  }
}

// What civetweb logs while mg_start2 runs on this thread. It names the cause ("cannot bind to
// 127.0.0.1:8080: 98 (Address already in use)") where mg_start2's own error text only says
// "Failed to setup server ports", so Start puts these messages in its Status.
thread_local std::vector<std::string>* start_messages = nullptr;

// Opens and at once closes a TCP connection to the server's own listening socket. civetweb's
// accept loop polls with a 2 s timeout and looks at its stop flag only between polls; a
// connection ends the poll, so Stop takes milliseconds instead of up to 2 s.
void Knock(const std::string& host, int port) {
  bool ipv6 = !host.empty() && host.front() == '[';
  std::string ip = host.empty() ? "127.0.0.1" : ipv6 ? host.substr(1, host.size() - 2) : host;
  sockaddr_storage address{};
  socklen_t length = 0;
  if (ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, ip.c_str(), &in6->sin6_addr) != 1) return;
    length = sizeof(sockaddr_in6);
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&address);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, ip.c_str(), &in4->sin_addr) != 1) return;
    length = sizeof(sockaddr_in);
  }
  int socket_fd = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (socket_fd < 0) return;
  connect(socket_fd, reinterpret_cast<const sockaddr*>(&address), length);
  close(socket_fd);
}

}  // namespace

OpsServer::OpsServer(std::string listen_address, ReadinessCheck readiness, MetricsText metrics)
    : listen_address_(std::move(listen_address)),
      readiness_(std::move(readiness)),
      metrics_(std::move(metrics)) {}

OpsServer::OpsServer(std::string listen_address, ReadinessCheck readiness,
                     prometheus::Registry& registry)
    : OpsServer(std::move(listen_address), std::move(readiness),
                [&registry] { return SerializeMetrics(registry); }) {}

OpsServer::~OpsServer() { Stop(); }

Status OpsServer::AddRoute(const std::string& path, Route route) {
  if (context_ != nullptr) {
    return Status::Error("ops server: cannot add " + path + " while serving");
  }
  if (path.empty() || path.front() != '/') {
    return Status::Error("ops server: a route's path starts with '/', got \"" + path + "\"");
  }
  if (IsBuiltIn(path) || !routes_.emplace(path, std::move(route)).second) {
    return Status::Error("ops server: " + path + " is served already");
  }
  return Status::Ok();
}

Status OpsServer::Start() {
  if (context_ != nullptr)
    return Status::Error("ops server: already serving on " + listen_address_);
  Result<ListenAddress> address = ParseListenAddress(listen_address_);
  if (!address.ok()) return Status::Error("ops server: " + address.message());
  std::string ports = CivetwebListeningPort(*address);
  std::array<const char*, 7> options = {
      "listening_ports",    ports.c_str(),     "num_threads", kWorkerThreads,
      "request_timeout_ms", kRequestTimeoutMs, nullptr};
  mg_callbacks callbacks{};
  callbacks.begin_request = &OpsServer::HandleRequest;
  callbacks.log_message = &OpsServer::LogCivetwebMessage;
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = options.data();
  std::array<char, 256> error_text{};
  unsigned error_code = 0;
  mg_error_data error{};
  error.code = &error_code;
  error.text = error_text.data();
  error.text_buffer_size = error_text.size();

  InitCivetwebOnce();
  std::vector<std::string> messages;
  start_messages = &messages;
  context_ = mg_start2(&init, &error);
  start_messages = nullptr;
  if (context_ == nullptr) {
    std::string why;
    for (const std::string& message : messages) why += (why.empty() ? "" : "; ") + message;
    if (why.empty()) why = error_text[0] != '\0' ? error_text.data() : "civetweb did not start";
    return Status::Error("ops server: cannot listen on " + listen_address_ + ": " + why);
  }
  mg_server_port bound{};
  if (mg_get_server_ports(context_, 1, &bound) < 1) {
    Stop();
    return Status::Error("ops server: no listening port after starting on " + listen_address_);
  }
  port_ = bound.port;
  host_ = address->host;
  return Status::Ok();
}

void OpsServer::Stop() {
  if (context_ == nullptr) return;
  std::atomic<bool> stopped{false};
  std::thread knocker([&] {
    // Knocks until mg_stop returns: a knock that lands before civetweb has set its stop flag
    // is served (an empty connection) and the next one ends the following poll.
    while (!stopped) {
      Knock(host_, port_);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  mg_stop(context_);  // joins civetweb's threads; no callback runs after this returns
  stopped = true;
  knocker.join();
  context_ = nullptr;
  port_ = 0;
}

// civetweb calls this for every request before its own processing; answering here (and
// returning the status) means civetweb serves no files and adds nothing of its own.
int OpsServer::HandleRequest(mg_connection* connection) {
  const mg_request_info* request = mg_get_request_info(connection);
  const auto* server = static_cast<const OpsServer*>(request->user_data);
  return server->Serve(connection);
}

int OpsServer::LogCivetwebMessage(const mg_connection*, const char* message) {
  if (start_messages != nullptr) {
    start_messages->emplace_back(message);  // Start reports them in its Status
  } else {
    spdlog::warn("ops server: {}", message);
  }
  return 1;  // handled: civetweb writes no log of its own
}

int OpsServer::Serve(mg_connection* connection) const {
  const mg_request_info* request = mg_get_request_info(connection);
  std::string_view method = request->request_method != nullptr ? request->request_method : "";
  std::string_view path = request->local_uri != nullptr ? request->local_uri : "";
  bool head_only = method == "HEAD";
  bool readable = method == "GET" || head_only;

  const auto route = routes_.find(path);
  const bool known = IsBuiltIn(path) || route != routes_.end();
  Response response;
  // The callbacks are the caller's code: an exception must not unwind through civetweb's C
  // frames, so it becomes a 500 here.
  try {
    if (!known) {
      response = {404, kPlainText, "not found\n"};
    } else if (!readable) {
      response = {405, kPlainText, "method not allowed\n", true};
    } else if (route != routes_.end()) {
      Reply reply = route->second.reply ? route->second.reply() : Reply{};
      response = {reply.status, route->second.content_type, std::move(reply.body), false,
                  &route->second.headers};
    } else if (path == "/healthz") {
      response.body = "ok";
    } else if (path == "/readyz") {
      auto [ready, reason] = readiness_ ? readiness_() : std::pair<bool, std::string>{true, ""};
      if (ready) {
        response.body = "ok";
      } else {
        response = {503, kPlainText, reason.empty() ? std::string("not ready") : reason};
      }
    } else {
      response = {200, kMetricsContentType, metrics_ ? metrics_() : std::string()};
    }
  } catch (const std::exception& e) {
    response = {500, kPlainText, std::string("internal error: ") + e.what()};
  } catch (...) {
    response = {500, kPlainText, "internal error"};
  }
  Send(connection, response, head_only);
  return response.status;
}

std::string SerializeMetrics(const prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

}  // namespace quotient::telemetry
