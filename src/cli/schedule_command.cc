#include "cli/schedule_command.h"

#include <chrono>
#include <iostream>

#include "actions/registry.h"
#include "cli/report_document.h"
#include "cli/report_table.h"
#include "kube/loader.h"
#include "kube/scheduler_config_codec.h"
#include "kube/text_formats.h"
#include "scheduler/run.h"

namespace quotient::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

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

void PrintDiagnostics(const std::vector<core::Diagnostic>& diagnostics, std::ostream& err) {
  for (const core::Diagnostic& d : diagnostics) {
    err << "quotient: "
        << (d.severity == core::Diagnostic::Severity::kError ? "error: " : "warning: ")
        << d.ToString() << "\n";
  }
}

}  // namespace

CLI::App* AddScheduleCommand(CLI::App& app, ScheduleFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Run scheduling cycles on a cluster given as Kubernetes objects and report");
  cmd->add_option("--config", flags.config_path,
                  "Scheduler configuration in KAI's format (actions, tiers of plugins)");
  cmd->add_option("--actions", flags.actions,
                  "Comma-separated actions, overriding the configuration: allocate, "
                  "consolidation, reclaim, preempt, stalegangeviction");
  cmd->add_option("--cycles", flags.cycles, "Number of scheduling cycles (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Schedule only pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--now", flags.now, "The clock for time-based rules, RFC3339 (default: now)");
  cmd->add_option("-o,--output", flags.output, "Output format")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  cmd->add_flag("--delete-evicted", flags.delete_evicted,
                "Evicted pods are deleted instead of re-created as Pending");
  cmd->add_option("inputs", flags.inputs, "Files, directories (*.yaml, *.yml, *.json) or - ")
      ->required();
  return cmd;
}

int RunSchedule(const ScheduleFlags& flags, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err) {
  scheduler::RunOptions options;
  if (!flags.config_path.empty()) {
    Result<scheduler::SchedulerConfig> config = kube::LoadSchedulerConfigFile(flags.config_path);
    if (!config.ok()) {
      err << "quotient: error: " << config.message() << "\n";
      return kExitBadInput;
    }
    options.config = config.value();
  }
  if (!flags.actions.empty()) {
    options.config.actions = SplitActions(flags.actions);
    for (const std::string& name : options.config.actions) {
      if (!actions::IsKnownAction(name)) {
        err << "quotient: error: --actions: unknown action \"" << name
            << "\" (known: allocate, consolidation, reclaim, preempt, stalegangeviction)\n";
        return kExitUsage;
      }
    }
  }
  options.scheduler_name = !flags.scheduler_name.empty()   ? flags.scheduler_name
                           : options.config.scheduler_name ? *options.config.scheduler_name
                                                           : "quotient";
  if (!flags.now.empty()) {
    Result<core::Time> now = kube::ParseRfc3339(flags.now);
    if (!now.ok()) {
      err << "quotient: error: --now: " << now.message() << "\n";
      return kExitUsage;
    }
    options.now = now.value();
  } else {
    options.now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  }
  options.cycles = flags.cycles;
  options.delete_evicted = flags.delete_evicted;

  for (const std::string& name : options.config.actions) {
    if (!actions::IsActionAvailable(name)) {
      err << "quotient: note: action \"" << name
          << "\" is accepted but has no effect in this version\n";
    }
  }

  kube::LoadResult loaded = kube::LoadManifests(flags.inputs, stdin_stream);
  PrintDiagnostics(loaded.diagnostics, err);
  if (loaded.HasErrors()) return kExitBadInput;

  const scheduler::RunReport report = scheduler::Run(std::move(loaded.objects), options);
  PrintDiagnostics(report.diagnostics, err);
  if (flags.output == "json") {
    out << ToJson(ReportDocument(report));
  } else if (flags.output == "yaml") {
    out << ToYaml(ReportDocument(report));
  } else {
    out << ReportTables(report);
  }
  return kExitOk;
}

}  // namespace quotient::cli
