// Typed API errors: every non-2xx answer of the API server carries a metav1.Status, and callers
// act on its reason (NotFound: gone already; Conflict: re-read and retry; Gone/Expired: relist;
// TooManyRequests: back off; Forbidden: RBAC says no). Transport failures (no HTTP answer at all)
// are their own reason so a caller can tell "the server said no" from "no server".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace quotient::kubeclient {

enum class ApiReason {
  kBadRequest,            // 400
  kUnauthorized,          // 401
  kForbidden,             // 403
  kNotFound,              // 404
  kMethodNotAllowed,      // 405
  kConflict,              // 409, reason Conflict (stale resourceVersion, failed precondition)
  kAlreadyExists,         // 409, reason AlreadyExists
  kGone,                  // 410 Gone or Expired: the resourceVersion is too old, relist
  kUnsupportedMediaType,  // 415
  kInvalid,               // 422
  kTooManyRequests,       // 429 (API priority and fairness, or a PodDisruptionBudget)
  kInternalError,         // 500
  kServiceUnavailable,    // 503
  kTimeout,               // 504 / reason Timeout
  kOtherHttp,             // any other status code
  kTransport,             // no HTTP answer: connection refused, TLS failure, reset, ...
  kDecode,                // a 2xx answer whose body could not be read
};

std::string_view ReasonName(ApiReason reason);

struct StatusCause {
  std::string reason;  // e.g. FieldValueInvalid, DisruptionBudget, FieldManagerConflict
  std::string message;
  std::string field;
};

struct ApiError {
  ApiReason reason = ApiReason::kOtherHttp;
  int32_t http_code = 0;      // 0 for kTransport
  std::string status_reason;  // metav1.Status.reason as sent ("" when the body was not a Status)
  std::string message;
  std::vector<StatusCause> causes;
  int64_t retry_after_seconds = 0;  // Retry-After header, else details.retryAfterSeconds

  // "Forbidden (403): pods is forbidden: User ... cannot list ..." — for logs and errors.
  std::string Describe() const;
  bool HasCause(std::string_view cause_reason) const;
};

// Builds the error for an HTTP answer: the body is parsed as metav1.Status when it is one
// (reason and message taken from it, Expired and Gone both map to kGone); otherwise the status
// code decides and the start of the body becomes the message.
ApiError ErrorFromResponse(int32_t http_code, std::string_view body, int64_t retry_after_seconds);
// The error a metav1.Status object describes on its own (a watch ERROR event), its code taken
// from the Status.
ApiError ErrorFromStatus(std::string_view status_json);
ApiError TransportError(std::string message);
ApiError DecodeError(std::string message);

// A value or the ApiError saying why there is none (std::expected is C++23).
template <typename T>
class [[nodiscard]] ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit, as std::expected
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const ApiError& error() const { return std::get<ApiError>(state_); }
  bool Is(ApiReason reason) const { return !ok() && error().reason == reason; }

 private:
  std::variant<T, ApiError> state_;
};

// For operations whose success carries nothing.
struct Done {};
using ApiStatus = ApiResult<Done>;
inline ApiStatus Success() { return Done{}; }

}  // namespace quotient::kubeclient
