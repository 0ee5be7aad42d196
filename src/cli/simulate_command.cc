#include "cli/simulate_command.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "cli/command_common.h"
#include "core/quantity.h"
#include "core/time_text.h"
#include "kube/loader.h"
#include "simulate/report_files.h"
#include "simulate/simulation.h"

namespace quotient::cli {
namespace {

// A Go-duration flag; prints the error and returns nullopt when it cannot be read.
std::optional<std::chrono::seconds> DurationFlag(const std::string& name, const std::string& text,
                                                 bool positive, std::ostream& err) {
  Result<std::chrono::seconds> d = core::ParseGoDuration(text);
  if (!d.ok()) {
    err << "quotient: error: " << name << " \"" << text << "\": " << d.message() << "\n";
    return std::nullopt;
  }
  if (positive && d.value().count() <= 0) {
    err << "quotient: error: " << name << " \"" << text << "\": must be at least 1s\n";
    return std::nullopt;
  }
  return d.value();
}

bool WriteFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
               std::ostream& err) {
  std::ofstream file(path);
  if (file) write(file);
  if (!file) {
    err << "quotient: error: cannot write " << path.string() << "\n";
    return false;
  }
  return true;
}

}  // namespace

CLI::App* AddSimulateCommand(CLI::App& app, SimulateFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay a cluster and a workload over simulated time and report what happened");
  AddConfigFlags(*cmd, flags.config_path, flags.actions);
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Simulate pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--period", flags.period,
                  "Simulated time between scheduling cycles (default 1s)");
  cmd->add_option("--until", flags.until, "Stop at this simulated time (default: once settled)");
  cmd->add_option(
      "--settle", flags.settle,
      "With no events left, stop after cycles decided nothing for this long (default 1h)");
  cmd->add_option("--checkpoint", flags.checkpoint,
                  "Fraction of its progress an evicted pod keeps, 0 to 1 (default 0: restart)");
  cmd->add_option("--start", flags.start,
                  "Wall-clock time of the start, RFC3339 (default 2026-01-01T00:00:00Z)");
  cmd->add_option("--csv", flags.csv_dir, "Write cluster.csv, queues.csv and pods.csv here");
  cmd->add_option("inputs", flags.inputs, "Files, directories (*.yaml, *.yml, *.json) or -")
      ->required();
  return cmd;
}

int RunSimulate(const SimulateFlags& flags, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err) {
  simulate::SimulationOptions options;
  if (std::optional<int> failed =
          LoadConfig(flags.config_path, flags.actions, options.config, err)) {
    return *failed;
  }
  options.scheduler_name = SchedulerNameOf(flags.scheduler_name, options.config);
  const auto period = DurationFlag("--period", flags.period, true, err);
  const auto settle = DurationFlag("--settle", flags.settle, true, err);
  if (!period || !settle) return kExitUsage;
  options.period = *period;
  options.settle = *settle;
  if (!flags.until.empty()) {
    const auto until = DurationFlag("--until", flags.until, true, err);
    if (!until) return kExitUsage;
    options.until = *until;
  }
  Result<core::Quantity> checkpoint =
      core::ParseQuantity(flags.checkpoint, core::Scale::kMilli, core::Rounding::kDown);
  if (!checkpoint.ok() || checkpoint.value().value() < 0 || checkpoint.value().value() > 1000) {
    err << "quotient: error: --checkpoint \"" << flags.checkpoint
        << "\": a fraction from 0 to 1 is needed\n";
    return kExitUsage;
  }
  options.checkpoint_permille = static_cast<int32_t>(checkpoint.value().value());
  Result<core::Time> start = core::ParseRfc3339(flags.start);
  if (!start.ok()) {
    err << "quotient: error: --start: " << start.message() << "\n";
    return kExitUsage;
  }
  options.start = start.value();

  kube::LoadResult loaded = kube::LoadManifests(flags.inputs, stdin_stream);
  PrintDiagnostics(loaded.diagnostics, err);
  if (loaded.HasErrors()) return kExitBadInput;
  Result<simulate::SimulationResult> result =
      simulate::Simulate(std::move(loaded.objects), options);
  if (!result.ok()) {
    err << "quotient: error: " << result.message() << "\n";
    return kExitBadInput;
  }
  PrintDiagnostics(result.value().diagnostics, err);
  simulate::WriteSummary(result.value(), out);
  if (!flags.csv_dir.empty()) {
    const std::filesystem::path dir(flags.csv_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const simulate::SimulationResult& r = result.value();
    const bool written =
        WriteFile(
            dir / "cluster.csv", [&](std::ostream& o) { simulate::WriteClusterCsv(r, o); }, err) &&
        WriteFile(
            dir / "queues.csv", [&](std::ostream& o) { simulate::WriteQueuesCsv(r, o); }, err) &&
        WriteFile(
            dir / "pods.csv", [&](std::ostream& o) { simulate::WritePodsCsv(r, o); }, err);
    if (!written) return kExitBadInput;
    out << "CSV: " << (dir / "cluster.csv").string() << ", queues.csv, pods.csv\n";
  }
  return kExitOk;
}

}  // namespace quotient::cli
