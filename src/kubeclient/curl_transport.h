// Transport over libcurl: TLS verified against the configured CA by default (client
// certificates and CAs from memory, no temporary files), our own User-Agent (the API server
// pretty-prints JSON for curl's), keep-alive through a pool of reused handles, HTTP/2 when the
// server offers it, bearer/basic/exec credentials from a CredentialSource (re-asked after a 401).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kubeclient/credentials.h"
#include "kubeclient/kubeconfig.h"
#include "kubeclient/transport.h"

namespace quotient::kubeclient {

struct TransportOptions {
  std::string user_agent = "quotient/0.1.0 (linux/amd64)";
  bool http2 = true;
  long connect_timeout_ms = 10'000;  // NOLINT(runtime/int): libcurl takes long
  long request_timeout_ms = 60'000;  // NOLINT(runtime/int): plain requests only, not streams
  // A stream that delivers no byte for this long is treated as dead (bookmarks arrive about
  // once a minute on a healthy watch).
  long stream_idle_timeout_s = 150;  // NOLINT(runtime/int)
};

class CurlTransport : public Transport {
 public:
  // `credentials` supplies authentication per request; the TLS settings come from `config`.
  CurlTransport(ConnectionConfig config, std::shared_ptr<CredentialSource> credentials,
                TransportOptions options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  ApiResult<HttpResponse> Do(const HttpRequest& request) override;
  ApiResult<HttpResponse> Stream(const HttpRequest& request,
                                 const std::function<bool(std::string_view)>& on_data,
                                 const std::function<bool()>& cancelled) override;

 private:
  struct Handle;
  std::unique_ptr<Handle> Acquire();
  void Release(std::unique_ptr<Handle> handle);
  ApiResult<HttpResponse> Perform(const HttpRequest& request,
                                  const std::function<bool(std::string_view)>* on_data,
                                  const std::function<bool()>* cancelled);

  ConnectionConfig config_;
  std::shared_ptr<CredentialSource> credentials_;
  TransportOptions options_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Handle>> pool_;  // idle handles, each keeping its connection
};

// Builds the transport for `config` with the real file reader, exec runner and wall clock.
std::unique_ptr<CurlTransport> MakeCurlTransport(const ConnectionConfig& config,
                                                 TransportOptions options = {});

}  // namespace quotient::kubeclient
