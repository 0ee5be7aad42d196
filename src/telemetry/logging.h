// Log configuration for the scheduler's --log-format and --log-level flags: spdlog's default
// logger ("quotient") writes to stderr, where a container runtime collects it.
//   text: "2025-01-02T03:04:05.678Z info message", for people (colour when stderr is a terminal)
//   json: one object per line (json_log_formatter.h), for log collectors
// Levels: trace, debug, info, warn, error. Times are UTC in both formats.
#pragma once

#include <spdlog/common.h>
#include <spdlog/logger.h>

#include <memory>
#include <string_view>

#include "common/status.h"

namespace quotient::telemetry {

// The error names the bad value and the accepted ones.
Result<spdlog::level::level_enum> ParseLogLevel(std::string_view level);

// A logger named "quotient" writing to `sink` in `format` at `level`.
Result<std::shared_ptr<spdlog::logger>> MakeLogger(std::string_view format, std::string_view level,
                                                   spdlog::sink_ptr sink);

// Makes MakeLogger's logger (on stderr, or on `sink`) spdlog's default logger. On an error the
// current default logger stays as it was.
Status ConfigureLogging(std::string_view format, std::string_view level);
Status ConfigureLogging(std::string_view format, std::string_view level, spdlog::sink_ptr sink);

}  // namespace quotient::telemetry
