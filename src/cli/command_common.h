// What the offline commands (`schedule`, `simulate`) share: exit codes, the scheduler
// configuration from --config and --actions, and how input diagnostics are printed.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "framework/config.h"

namespace quotient::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // input that cannot be read
inline constexpr int kExitUsage = 2;     // bad flags

// --config and --actions, as `schedule` and `simulate` both take them.
void AddConfigFlags(CLI::App& cmd, std::string& config_path, std::string& actions);

// --scheduler-name, else the configuration's, else "quotient".
std::string SchedulerNameOf(const std::string& flag, const framework::SchedulerConfig& config);

// "allocate, reclaim" -> {"allocate", "reclaim"}.
std::vector<std::string> SplitActions(const std::string& list);

// Reads `config_path` (KAI's format; empty: the defaults) into `config` and applies `actions`
// (comma separated; empty: the configuration's). On failure prints why and returns the exit code.
std::optional<int> LoadConfig(const std::string& config_path, const std::string& actions,
                              framework::SchedulerConfig& config, std::ostream& err);

// Warnings and errors, one per line, "quotient: warning: ...".
void PrintDiagnostics(const std::vector<core::Diagnostic>& diagnostics, std::ostream& err);

}  // namespace quotient::cli
