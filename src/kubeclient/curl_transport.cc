#include "kubeclient/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>

namespace quotient::kubeclient {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// What one transfer collects; the callbacks get a pointer to it.
struct Transfer {
  const std::function<bool(std::string_view)>* on_data = nullptr;
  const std::function<bool()>* cancelled = nullptr;
  CURL* curl = nullptr;
  std::string body;
  int64_t retry_after_seconds = 0;
  bool stopped_by_caller = false;
};

bool IsSuccess(long code) { return code >= 200 && code < 300; }  // NOLINT(runtime/int)

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  long code = 0;  // NOLINT(runtime/int)
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
  if (t->on_data != nullptr && IsSuccess(code)) {
    if (!(*t->on_data)(std::string_view(data, n))) {
      t->stopped_by_caller = true;
      return 0;  // makes libcurl abort the transfer
    }
    return n;
  }
  t->body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) t->retry_after_seconds = 0;  // a new response begins
  constexpr std::string_view kRetryAfter = "retry-after:";
  if (line.size() > kRetryAfter.size()) {
    std::string lower(line.substr(0, kRetryAfter.size()));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == kRetryAfter) {
      // Only the delay-seconds form; the API server never sends an HTTP date here.
      std::string value(line.substr(kRetryAfter.size()));
      t->retry_after_seconds = std::max<int64_t>(0, std::strtoll(value.c_str(), nullptr, 10));
    }
  }
  return n;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancelled != nullptr && (*t->cancelled)()) {
    t->stopped_by_caller = true;
    return 1;
  }
  return 0;
}

curl_blob Blob(const std::string& pem) {
  return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
}

// "https://host:port" -> host and port (443 when absent).
void SplitServer(const std::string& server, std::string& scheme_host, std::string& host,
                 std::string& port) {
  std::string rest = server;
  std::string scheme = "https://";
  if (auto p = rest.find("://"); p != std::string::npos) {
    scheme = rest.substr(0, p + 3);
    rest = rest.substr(p + 3);
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) rest = rest.substr(0, slash);
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    host = rest;
    port = scheme == "http://" ? "80" : "443";
  }
  scheme_host = scheme;
}

}  // namespace

struct CurlTransport::Handle {
  CURL* curl = nullptr;
  Handle() : curl(curl_easy_init()) {}
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

CurlTransport::CurlTransport(ConnectionConfig config, std::shared_ptr<CredentialSource> credentials,
                             TransportOptions options)
    : config_(std::move(config)),
      credentials_(std::move(credentials)),
      options_(std::move(options)) {
  GlobalInitOnce();
  while (!config_.server.empty() && config_.server.back() == '/') config_.server.pop_back();
}

CurlTransport::~CurlTransport() = default;

std::unique_ptr<CurlTransport::Handle> CurlTransport::Acquire() {
  {
    std::lock_guard lock(pool_mu_);
    if (!pool_.empty()) {
      std::unique_ptr<Handle> h = std::move(pool_.back());
      pool_.pop_back();
      return h;
    }
  }
  return std::make_unique<Handle>();
}

void CurlTransport::Release(std::unique_ptr<Handle> handle) {
  constexpr size_t kMaxIdle = 16;
  std::lock_guard lock(pool_mu_);
  if (pool_.size() < kMaxIdle) pool_.push_back(std::move(handle));
}

ApiResult<HttpResponse> CurlTransport::Do(const HttpRequest& request) {
  return Perform(request, nullptr, nullptr);
}

ApiResult<HttpResponse> CurlTransport::Stream(const HttpRequest& request,
                                              const std::function<bool(std::string_view)>& on_data,
                                              const std::function<bool()>& cancelled) {
  return Perform(request, &on_data, &cancelled);
}

ApiResult<HttpResponse> CurlTransport::Perform(const HttpRequest& request,
                                               const std::function<bool(std::string_view)>* on_data,
                                               const std::function<bool()>* cancelled) {
  // One retry after a 401, with fresh credentials: exec plugin tokens and rotated
  // service-account tokens expire under us.
  for (int attempt = 0;; ++attempt) {
    ApiResult<AuthMaterial> auth = credentials_->Current();
    if (!auth.ok()) return auth.error();
    std::unique_ptr<Handle> handle = Acquire();
    CURL* c = handle->curl;
    curl_easy_reset(c);  // keeps the connection cache, TLS sessions and DNS cache

    std::string url = config_.server + request.target;
    std::string connect_to;
    curl_slist* connect_list = nullptr;
    if (!config_.tls_server_name.empty()) {
      // Verify the certificate for (and send SNI of) tls-server-name while connecting to the
      // configured address.
      std::string scheme, host, port;
      SplitServer(config_.server, scheme, host, port);
      url = scheme + config_.tls_server_name + ":" + port + request.target;
      connect_to = config_.tls_server_name + ":" + port + ":" + host + ":" + port;
      connect_list = curl_slist_append(nullptr, connect_to.c_str());
      curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_list);
    }
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    if (options_.http2) curl_easy_setopt(c, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    if (on_data == nullptr) {
      curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, options_.request_timeout_ms);
    } else {
      curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options_.stream_idle_timeout_s);
    }
    if (!config_.proxy_url.empty()) curl_easy_setopt(c, CURLOPT_PROXY, config_.proxy_url.c_str());

    // TLS: verification stays on unless the configuration explicitly turns it off.
    curl_blob ca_blob = Blob(config_.ca_pem);
    if (!config_.ca_pem.empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca_blob);
    if (config_.insecure_skip_tls_verify) {
      curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_blob cert_blob = Blob(auth->client_cert_pem);
    curl_blob key_blob = Blob(auth->client_key_pem);
    if (!auth->client_cert_pem.empty()) {
      curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert_blob);
      curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
      curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key_blob);
    }

    curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
    std::string bearer;
    if (!auth->bearer_token.empty()) {
      bearer = "Authorization: Bearer " + auth->bearer_token;
      headers = curl_slist_append(headers, bearer.c_str());
    }
    if (!auth->basic_user.empty()) {
      curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(c, CURLOPT_USERNAME, auth->basic_user.c_str());
      curl_easy_setopt(c, CURLOPT_PASSWORD, auth->basic_password.c_str());
    }
    std::string content_type;
    if (!request.content_type.empty()) {
      content_type = "Content-Type: " + request.content_type;
      headers = curl_slist_append(headers, content_type.c_str());
    }
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

    if (request.method == "GET") {
      curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
        request.method == "PATCH") {
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }

    Transfer transfer;
    transfer.on_data = on_data;
    transfer.cancelled = cancelled;
    transfer.curl = c;
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
    if (cancelled != nullptr) {
      curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
      curl_easy_setopt(c, CURLOPT_XFERINFODATA, &transfer);
    }

    CURLcode rc = curl_easy_perform(c);
    long code = 0;  // NOLINT(runtime/int)
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_list);

    if (rc != CURLE_OK && !transfer.stopped_by_caller) {
      std::string message = "request " + request.method + " " + request.target + " to " +
                            config_.server + ": " + curl_easy_strerror(rc);
      // A failed handle may hold a broken connection; let it go rather than reuse it.
      return TransportError(std::move(message));
    }
    Release(std::move(handle));
    if (code == 401 && attempt == 0 && credentials_ != nullptr) {
      credentials_->Invalidate();
      continue;
    }
    HttpResponse response;
    response.code = static_cast<int32_t>(code);
    response.body = std::move(transfer.body);
    response.retry_after_seconds = transfer.retry_after_seconds;
    return response;
  }
}

std::unique_ptr<CurlTransport> MakeCurlTransport(const ConnectionConfig& config,
                                                 TransportOptions options) {
  auto credentials = std::make_shared<CredentialSource>(
      config, RealFileReader(), RealExecRunner(), [] { return std::chrono::system_clock::now(); });
  return std::make_unique<CurlTransport>(config, std::move(credentials), std::move(options));
}

}  // namespace quotient::kubeclient
