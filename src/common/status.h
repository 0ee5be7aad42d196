// Status and Result<T>: how fallible operations report failure without exceptions.
//
// The scheduling core (core, fairshare, scheduler) never throws; an operation that can fail on
// bad input returns a Status or a Result<T> whose message names the object and field at fault.
// A scheduling outcome ("does not fit") is not an error and never travels as a Status.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace quotient {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}

  bool failed_ = false;
  std::string message_;
};

// A value or the message saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT: implicit, as std::expected
  Result(Status status) : state_(std::move(status)) {}  // NOLINT: must be an error status

  static Result Error(std::string message) { return Result(Status::Error(std::move(message))); }

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const std::string& message() const {
    static const std::string kEmpty;
    return ok() ? kEmpty : std::get<Status>(state_).message();
  }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace quotient
