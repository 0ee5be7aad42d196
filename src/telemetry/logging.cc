#include "telemetry/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

#include "telemetry/json_log_formatter.h"

namespace quotient::telemetry {
namespace {

constexpr const char* kLoggerName = "quotient";
// %^...%$ marks the coloured range (the level) for a colour sink; other sinks ignore it.
constexpr const char* kTextPattern = "%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v";

enum class LogFormat { kText, kJson };

Result<LogFormat> ParseLogFormat(std::string_view format) {
  if (format == "text") return LogFormat::kText;
  if (format == "json") return LogFormat::kJson;
  return Result<LogFormat>::Error("log format \"" + std::string(format) +
                                  "\": expected text or json");
}

std::unique_ptr<spdlog::formatter> MakeFormatter(LogFormat format) {
  if (format == LogFormat::kJson) return std::make_unique<JsonLogFormatter>();
  return std::make_unique<spdlog::pattern_formatter>(kTextPattern, spdlog::pattern_time_type::utc);
}

}  // namespace

Result<spdlog::level::level_enum> ParseLogLevel(std::string_view level) {
  if (level == "trace") return spdlog::level::trace;
  if (level == "debug") return spdlog::level::debug;
  if (level == "info") return spdlog::level::info;
  if (level == "warn") return spdlog::level::warn;
  if (level == "error") return spdlog::level::err;
  return Result<spdlog::level::level_enum>::Error("log level \"" + std::string(level) +
                                                  "\": expected trace, debug, info, warn or error");
}

Result<std::shared_ptr<spdlog::logger>> MakeLogger(std::string_view format, std::string_view level,
                                                   spdlog::sink_ptr sink) {
  Result<LogFormat> parsed_format = ParseLogFormat(format);
  if (!parsed_format.ok()) return parsed_format.status();
  Result<spdlog::level::level_enum> parsed_level = ParseLogLevel(level);
  if (!parsed_level.ok()) return parsed_level.status();
  sink->set_formatter(MakeFormatter(*parsed_format));
  auto logger = std::make_shared<spdlog::logger>(kLoggerName, std::move(sink));
  logger->set_level(*parsed_level);
  return logger;
}

Status ConfigureLogging(std::string_view format, std::string_view level) {
  return ConfigureLogging(format, level, std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
}

Status ConfigureLogging(std::string_view format, std::string_view level, spdlog::sink_ptr sink) {
  Result<std::shared_ptr<spdlog::logger>> logger = MakeLogger(format, level, std::move(sink));
  if (!logger.ok()) return logger.status();
  spdlog::set_default_logger(*logger);
  return Status::Ok();
}

}  // namespace quotient::telemetry
