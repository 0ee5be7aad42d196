// `quotient webhook`'s HTTPS server: the API server calls it for every pod CREATE and UPDATE
// (the chart's MutatingWebhookConfiguration and ValidatingWebhookConfiguration), so it answers
// from memory, with no call of its own to the API server:
//   POST /mutate-pods    the GPU-sharing wiring (ReviewPod's patch; refusals too)
//   POST /validate-pods  the same checks, never a patch (runs after every mutating webhook)
//   GET  /healthz, /readyz  "ok" (the kubelet's probes, over HTTPS too)
// A body that is not an AdmissionReview gets 400 with the reason; the API server then applies
// the webhook's failure policy (docs/gpu-sharing.md says which and why).
//
// TLS only: the API server refuses plain HTTP webhooks. The certificate is re-read when its files
// change (TlsCertificate).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "webhook/gpu_admission.h"

namespace httplib {
class Server;
}

namespace quotient::webhook {

class TlsCertificate;

struct WebhookServerOptions {
  std::string listen_address = ":9443";  // "host:port"; port 0 = any free port (tests)
  std::string certificate_file;
  std::string key_file;
  AdmissionSettings settings;
  int worker_threads = 4;
};

struct WebhookStats {
  int64_t reviews = 0;
  int64_t refused = 0;
  int64_t patched = 0;
  int64_t bad_requests = 0;
};

class WebhookServer {
 public:
  explicit WebhookServer(WebhookServerOptions options);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Reads the certificate, binds and starts serving on a thread of its own. Fails, naming the
  // file or the address, on an unreadable certificate, a malformed address or a port in use.
  Status Start();
  int Port() const { return port_; }
  // Stops accepting, lets requests in flight finish and joins; safe to call twice.
  void Stop();
  WebhookStats Stats() const;

 private:
  std::string Review(const std::string& body, bool mutate, int& status);

  WebhookServerOptions options_;
  std::unique_ptr<TlsCertificate> certificate_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
  std::atomic<bool> listener_done_{false};
  int port_ = 0;
  std::atomic<int64_t> reviews_{0};
  std::atomic<int64_t> refused_{0};
  std::atomic<int64_t> patched_{0};
  std::atomic<int64_t> bad_requests_{0};
};

}  // namespace quotient::webhook
