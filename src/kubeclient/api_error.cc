#include "kubeclient/api_error.h"

#include <charconv>

#include <algorithm>

#include "kube/value.h"

namespace quotient::kubeclient {
namespace {

ApiReason ReasonForCode(int32_t code) {
  switch (code) {
    case 400:
      return ApiReason::kBadRequest;
    case 401:
      return ApiReason::kUnauthorized;
    case 403:
      return ApiReason::kForbidden;
    case 404:
      return ApiReason::kNotFound;
    case 405:
      return ApiReason::kMethodNotAllowed;
    case 409:
      return ApiReason::kConflict;
    case 410:
      return ApiReason::kGone;
    case 415:
      return ApiReason::kUnsupportedMediaType;
    case 422:
      return ApiReason::kInvalid;
    case 429:
      return ApiReason::kTooManyRequests;
    case 500:
      return ApiReason::kInternalError;
    case 503:
      return ApiReason::kServiceUnavailable;
    case 504:
      return ApiReason::kTimeout;
    default:
      return ApiReason::kOtherHttp;
  }
}

// metav1.StatusReason values that refine what the code alone says.
ApiReason RefineByStatusReason(ApiReason by_code, std::string_view reason) {
  if (reason == "AlreadyExists") return ApiReason::kAlreadyExists;
  if (reason == "Conflict") return ApiReason::kConflict;
  if (reason == "Expired" || reason == "Gone") return ApiReason::kGone;
  if (reason == "NotFound") return ApiReason::kNotFound;
  if (reason == "Forbidden") return ApiReason::kForbidden;
  if (reason == "Invalid") return ApiReason::kInvalid;
  if (reason == "TooManyRequests") return ApiReason::kTooManyRequests;
  if (reason == "Timeout") return ApiReason::kTimeout;
  return by_code;
}

std::string Truncated(std::string_view text) {
  constexpr size_t kMax = 300;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

// Reads a metav1.Status body into `error`; false when the body is not one.
bool ReadStatus(std::string_view body, ApiError& error) {
  Result<kube::Value> status = kube::ParseJson(body);
  if (!status.ok() || !status->is_mapping()) return false;
  const kube::Value* kind = status->Find("kind");
  if (kind == nullptr || kind->text() != "Status") return false;
  auto text = [](const kube::Value* v) { return v != nullptr ? v->text() : std::string(); };
  error.status_reason = text(status->Find("reason"));
  error.message = text(status->Find("message"));
  const kube::Value* details = status->Find("details");
  if (details == nullptr) return true;
  if (const kube::Value* seconds = details->Find("retryAfterSeconds");
      seconds != nullptr && error.retry_after_seconds == 0) {
    std::from_chars(seconds->text().data(), seconds->text().data() + seconds->text().size(),
                    error.retry_after_seconds);
  }
  if (const kube::Value* causes = details->Find("causes")) {
    for (const kube::Value& c : causes->items()) {
      error.causes.push_back(
          {text(c.Find("reason")), text(c.Find("message")), text(c.Find("field"))});
    }
  }
  return true;
}

}  // namespace

std::string_view ReasonName(ApiReason reason) {
  switch (reason) {
    case ApiReason::kBadRequest:
      return "BadRequest";
    case ApiReason::kUnauthorized:
      return "Unauthorized";
    case ApiReason::kForbidden:
      return "Forbidden";
    case ApiReason::kNotFound:
      return "NotFound";
    case ApiReason::kMethodNotAllowed:
      return "MethodNotAllowed";
    case ApiReason::kConflict:
      return "Conflict";
    case ApiReason::kAlreadyExists:
      return "AlreadyExists";
    case ApiReason::kGone:
      return "Gone";
    case ApiReason::kUnsupportedMediaType:
      return "UnsupportedMediaType";
    case ApiReason::kInvalid:
      return "Invalid";
    case ApiReason::kTooManyRequests:
      return "TooManyRequests";
    case ApiReason::kInternalError:
      return "InternalError";
    case ApiReason::kServiceUnavailable:
      return "ServiceUnavailable";
    case ApiReason::kTimeout:
      return "Timeout";
    case ApiReason::kOtherHttp:
      return "HTTPError";
    case ApiReason::kTransport:
      return "TransportError";
    case ApiReason::kDecode:
      return "DecodeError";
  }
  return "Unknown";
}

std::string ApiError::Describe() const {
  std::string text(ReasonName(reason));
  if (http_code != 0) text += " (" + std::to_string(http_code) + ")";
  if (!message.empty()) text += ": " + message;
  return text;
}

bool ApiError::HasCause(std::string_view cause_reason) const {
  return std::any_of(causes.begin(), causes.end(),
                     [&](const StatusCause& c) { return c.reason == cause_reason; });
}

ApiError ErrorFromResponse(int32_t http_code, std::string_view body, int64_t retry_after_seconds) {
  ApiError error;
  error.http_code = http_code;
  error.retry_after_seconds = retry_after_seconds;
  error.reason = ReasonForCode(http_code);
  if (ReadStatus(body, error)) {
    error.reason = RefineByStatusReason(error.reason, error.status_reason);
  } else {
    error.status_reason.clear();
    error.causes.clear();
    error.message = Truncated(body);
  }
  return error;
}

ApiError ErrorFromStatus(std::string_view status_json) {
  int32_t code = 0;
  if (Result<kube::Value> status = kube::ParseJson(status_json); status.ok()) {
    if (const kube::Value* c = status->Find("code")) {
      std::from_chars(c->text().data(), c->text().data() + c->text().size(), code);
    }
  }
  return ErrorFromResponse(code, status_json, 0);
}

ApiError TransportError(std::string message) {
  ApiError error;
  error.reason = ApiReason::kTransport;
  error.message = std::move(message);
  return error;
}

ApiError DecodeError(std::string message) {
  ApiError error;
  error.reason = ApiReason::kDecode;
  error.message = std::move(message);
  return error;
}

}  // namespace quotient::kubeclient
