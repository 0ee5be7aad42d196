#include "kubeclient/api_error.h"

#include <simdjson.h>

#include <algorithm>

namespace quotient::kubeclient {
namespace {

namespace od = simdjson::ondemand;

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
  od::parser parser;
  simdjson::padded_string padded(body);
  od::document doc;
  od::object top;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return false;
  if (doc.get_object().get(top) != simdjson::SUCCESS) return false;
  bool is_status = false;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    std::string_view text;
    if (key == "kind") {
      is_status = field.value().get_string().get(text) == simdjson::SUCCESS && text == "Status";
    } else if (key == "reason") {
      if (field.value().get_string().get(text) == simdjson::SUCCESS) error.status_reason = text;
    } else if (key == "message") {
      if (field.value().get_string().get(text) == simdjson::SUCCESS) error.message = text;
    } else if (key == "details") {
      od::object details;
      if (field.value().get_object().get(details) != simdjson::SUCCESS) continue;
      for (auto detail : details) {
        std::string_view detail_key;
        if (detail.unescaped_key().get(detail_key) != simdjson::SUCCESS) return false;
        if (detail_key == "retryAfterSeconds") {
          int64_t seconds = 0;
          if (detail.value().get_int64().get(seconds) == simdjson::SUCCESS &&
              error.retry_after_seconds == 0) {
            error.retry_after_seconds = seconds;
          }
        } else if (detail_key == "causes") {
          od::array causes;
          if (detail.value().get_array().get(causes) != simdjson::SUCCESS) continue;
          for (auto cause_value : causes) {
            od::object cause_object;
            if (cause_value.get_object().get(cause_object) != simdjson::SUCCESS) continue;
            StatusCause cause;
            for (auto cause_field : cause_object) {
              std::string_view cause_key;
              std::string_view cause_text;
              if (cause_field.unescaped_key().get(cause_key) != simdjson::SUCCESS) return false;
              if (cause_field.value().get_string().get(cause_text) != simdjson::SUCCESS) continue;
              if (cause_key == "reason") cause.reason = cause_text;
              if (cause_key == "message") cause.message = cause_text;
              if (cause_key == "field") cause.field = cause_text;
            }
            error.causes.push_back(std::move(cause));
          }
        }
      }
    }
  }
  return is_status;
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
