#include "cli/command_common.h"

#include "actions/registry.h"
#include "kube/scheduler_config_codec.h"

namespace quotient::cli {

void AddConfigFlags(CLI::App& cmd, std::string& config_path, std::string& actions) {
  cmd.add_option("--config", config_path,
                 "Scheduler configuration in KAI's format (actions, tiers of plugins)");
  cmd.add_option("--actions", actions,
                 "Comma-separated actions, overriding the configuration: allocate, "
                 "consolidation, reclaim, preempt, stalegangeviction");
}

std::string SchedulerNameOf(const std::string& flag, const framework::SchedulerConfig& config) {
  if (!flag.empty()) return flag;
  return config.scheduler_name ? *config.scheduler_name : "quotient";
}

std::vector<std::string> SplitActions(const std::string& list) {
  std::vector<std::string> out;
  std::string current;
  for (char c : list + ",") {
    if (c == ',') {
      while (!current.empty() && current.back() == ' ') current.pop_back();
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else if (!(c == ' ' && current.empty())) {
      current += c;
    }
  }
  return out;
}

std::optional<int> LoadConfig(const std::string& config_path, const std::string& actions,
                              framework::SchedulerConfig& config, std::ostream& err) {
  if (!config_path.empty()) {
    Result<framework::SchedulerConfig> loaded = kube::LoadSchedulerConfigFile(config_path);
    if (!loaded.ok()) {
      err << "quotient: error: " << loaded.message() << "\n";
      return kExitBadInput;
    }
    config = loaded.value();
  }
  if (!actions.empty()) {
    config.actions = SplitActions(actions);
    for (const std::string& name : config.actions) {
      if (!actions::IsKnownAction(name)) {
        err << "quotient: error: --actions: unknown action \"" << name
            << "\" (known: allocate, consolidation, reclaim, preempt, stalegangeviction)\n";
        return kExitUsage;
      }
    }
  }
  return std::nullopt;
}

void PrintDiagnostics(const std::vector<core::Diagnostic>& diagnostics, std::ostream& err) {
  for (const core::Diagnostic& d : diagnostics) {
    err << "quotient: "
        << (d.severity == core::Diagnostic::Severity::kError ? "error: " : "warning: ")
        << d.ToString() << "\n";
  }
}

}  // namespace quotient::cli
