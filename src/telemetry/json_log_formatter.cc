#include "telemetry/json_log_formatter.h"

#include <time.h>

#include <fmt/format.h>
#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

namespace quotient::telemetry {
namespace {

std::string_view LevelName(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::err:
      return "error";
    case spdlog::level::critical:
      return "critical";
    default:
      return "off";
  }
}

}  // namespace

std::string FormatRfc3339Millis(std::chrono::system_clock::time_point time) {
  auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time - seconds).count();
  time_t epoch_seconds = std::chrono::system_clock::to_time_t(seconds);
  tm utc{};
  gmtime_r(&epoch_seconds, &utc);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     static_cast<int>(millis));
}

void JsonLogFormatter::format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) {
  // ordered_json keeps the keys in this order, so a human reading raw lines finds ts first.
  nlohmann::ordered_json line;
  line["ts"] = FormatRfc3339Millis(message.time);
  line["level"] = LevelName(message.level);
  line["logger"] = std::string(message.logger_name.data(), message.logger_name.size());
  line["msg"] = std::string(message.payload.data(), message.payload.size());
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  dest.append(text.data(), text.data() + text.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace quotient::telemetry
