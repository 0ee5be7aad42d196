#include "webhook/webhook_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <chrono>
#include <exception>

#include "telemetry/listen_address.h"
#include "webhook/tls_certificate.h"

namespace quotient::webhook {

namespace {

// An AdmissionReview of a pod is a few KiB; the cap stops a client from making the server buffer
// gigabytes. The API server's own limit for a webhook call is 3 MiB of object.
constexpr size_t kMaxBody = 8u << 20;
// The API server gives up on the webhook after its timeoutSeconds (chart: 5 s); a client that
// stalls longer only holds a worker.
constexpr time_t kReadTimeoutSeconds = 10;

constexpr char kJson[] = "application/json";

// httplib's spelling of the flag's host: every interface, a numeric IPv4, or IPv6 unbracketed.
std::string BindHost(const std::string& host) {
  if (host.empty()) return "0.0.0.0";
  if (host.front() == '[') return host.substr(1, host.size() - 2);
  return host;
}

}  // namespace

WebhookServer::WebhookServer(WebhookServerOptions options) : options_(std::move(options)) {}

WebhookServer::~WebhookServer() { Stop(); }

Status WebhookServer::Start() {
  if (server_) return Status::Error("webhook: already serving on " + options_.listen_address);
  Result<telemetry::ListenAddress> address = telemetry::ParseListenAddress(options_.listen_address);
  if (!address.ok()) return Status::Error("webhook: --listen-address: " + address.message());
  if (options_.certificate_file.empty() || options_.key_file.empty()) {
    return Status::Error("webhook: --tls-cert-file and --tls-private-key-file are required");
  }
  certificate_ = std::make_unique<TlsCertificate>(options_.certificate_file, options_.key_file);
  if (Status loaded = certificate_->Load(); !loaded.ok()) {
    return Status::Error("webhook: certificate: " + loaded.message());
  }
  TlsCertificate* certificate = certificate_.get();
  auto server = std::make_unique<httplib::SSLServer>([certificate](SSL_CTX& context) {
    SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
    certificate->AttachTo(&context);
    return true;
  });
  if (!server->is_valid()) return Status::Error("webhook: cannot set up TLS");
  const int workers = std::max(1, options_.worker_threads);
  server->new_task_queue = [workers] {
    return new httplib::ThreadPool(static_cast<size_t>(workers));
  };
  server->set_read_timeout(kReadTimeoutSeconds, 0);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second webhook (or
  // anything else) could bind the same port and silently take half the reviews.
  server->set_socket_options([](int socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->set_payload_max_length(kMaxBody);
  auto review = [this](bool mutate) {
    return [this, mutate](const httplib::Request& request, httplib::Response& response) {
      int status = 200;
      std::string body = Review(request.body, mutate, status);
      response.status = status;
      response.set_content(body, status == 200 ? kJson : "text/plain");
    };
  };
  server->Post("/mutate-pods", review(true));
  server->Post("/validate-pods", review(false));
  auto ok = [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok", "text/plain");
  };
  server->Get("/healthz", ok);
  server->Get("/readyz", ok);
  server->set_exception_handler(
      [](const httplib::Request&, httplib::Response& response, std::exception_ptr error) {
        std::string what = "unknown error";
        try {
          if (error) std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        spdlog::error("webhook: request failed: {}", what);
        response.status = 500;
        response.set_content("internal error: " + what, "text/plain");
      });

  const std::string host = BindHost(address->host);
  if (address->port == 0) {
    port_ = server->bind_to_any_port(host);
    if (port_ <= 0) port_ = 0;
  } else if (server->bind_to_port(host, address->port)) {
    port_ = address->port;
  }
  if (port_ == 0) {
    return Status::Error("webhook: cannot listen on " + options_.listen_address +
                         " (address in use or not local)");
  }
  server_ = std::move(server);
  listener_done_ = false;
  listener_ = std::thread([this] {
    server_->listen_after_bind();
    listener_done_ = true;
  });
  // httplib's stop() only reaches a server that is running: waiting for it here means a Stop
  // right after Start cannot be lost (and leave Stop joining a listener forever).
  while (!server_->is_running() && !listener_done_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

void WebhookServer::Stop() {
  if (!server_) return;
  server_->stop();
  if (listener_.joinable()) listener_.join();
  server_.reset();
  port_ = 0;
}

WebhookStats WebhookServer::Stats() const {
  return {reviews_.load(), refused_.load(), patched_.load(), bad_requests_.load()};
}

std::string WebhookServer::Review(const std::string& body, bool mutate, int& status) {
  Result<AdmissionRequest> request = ParseAdmissionReview(body);
  if (!request.ok()) {
    ++bad_requests_;
    status = 400;
    spdlog::warn("webhook: not an AdmissionReview: {}", request.message());
    return "not an AdmissionReview: " + request.message() + "\n";
  }
  ++reviews_;
  AdmissionResult result = ReviewPod(*request, options_.settings);
  if (!mutate) result.patch = nlohmann::json::array();
  if (!result.allowed) {
    ++refused_;
    spdlog::info("webhook: refused {} of a pod: {}", request->operation, result.message);
  } else if (!result.patch.empty()) {
    ++patched_;
  }
  return AdmissionReviewResponse(request->uid, result);
}

}  // namespace quotient::webhook
