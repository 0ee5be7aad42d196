// The HTTP layer under the REST client: one request in, one response out, or a streamed body
// for watches. The REST client's retry, throttling and error typing sit above this interface, so
// unit tests drive them with a scripted Transport while the integration tests use the real one
// (CurlTransport) against a real API server.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kubeclient/api_error.h"

namespace quotient::kubeclient {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string target;          // path and query, escaped: "/api/v1/pods?limit=500"
  std::string body;
  std::string content_type;  // for requests with a body
};

struct HttpResponse {
  int32_t code = 0;
  std::string body;                 // for Stream: only a non-2xx answer's body
  int64_t retry_after_seconds = 0;  // the Retry-After header, 0 when absent
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends one request. Any HTTP answer, whatever its code, is a response; an ApiError
  // (kTransport) means there was none.
  virtual ApiResult<HttpResponse> Do(const HttpRequest& request) = 0;
  // Sends a request whose 2xx body is a stream: `on_data` gets each chunk as it arrives and
  // returns false to stop. Returns when the server ends the body, when `on_data` or `cancelled`
  // says stop (`cancelled` is polled at least once a second while the stream is idle), or on a
  // transport failure.
  virtual ApiResult<HttpResponse> Stream(const HttpRequest& request,
                                         const std::function<bool(std::string_view)>& on_data,
                                         const std::function<bool()>& cancelled) = 0;
};

}  // namespace quotient::kubeclient
