// One JSON object per log line, the shape log collectors (Loki, Elasticsearch, Cloud Logging)
// parse without configuration:
//   {"ts":"2025-01-02T03:04:05.678Z","level":"info","logger":"quotient","msg":"..."}
// `ts` is RFC 3339 in UTC with milliseconds; `level` is trace, debug, info, warn, error or
// critical (the lower-case names of zap, the Go logger KAI uses); the message is escaped by
// nlohmann-json, and bytes that are not UTF-8 become U+FFFD rather than an exception or a
// broken line.
#pragma once

#include <spdlog/formatter.h>

#include <chrono>
#include <memory>
#include <string>

namespace quotient::telemetry {

class JsonLogFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

// "2025-01-02T03:04:05.678Z": RFC 3339, UTC, milliseconds truncated.
std::string FormatRfc3339Millis(std::chrono::system_clock::time_point time);

}  // namespace quotient::telemetry
