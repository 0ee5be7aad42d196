#include "cli/simulate_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command_common.h"
#include "cli/progress_bar.h"
#include "core/object_overlay.h"
#include "core/quantity.h"
#include "core/time_text.h"
#include "kube/loader.h"
#include "simulate/html_report.h"
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

// One run to simulate: its label, what it is, its objects and options.
struct RunInput {
  simulate::ReportRun report;
  core::ClusterObjects objects;
  simulate::SimulationOptions options;
};

// The options every run shares, from the flags; nullopt (after printing why) on bad flags.
std::optional<simulate::SimulationOptions> SharedOptions(const SimulateFlags& flags,
                                                         std::ostream& err) {
  simulate::SimulationOptions options;
  const auto period = DurationFlag("--period", flags.period, true, err);
  const auto settle = DurationFlag("--settle", flags.settle, true, err);
  if (!period || !settle) return std::nullopt;
  options.period = *period;
  options.settle = *settle;
  if (!flags.until.empty()) {
    const auto until = DurationFlag("--until", flags.until, true, err);
    if (!until) return std::nullopt;
    options.until = *until;
  }
  if (!flags.occupancy_at.empty()) {
    for (const std::string& text : SplitActions(flags.occupancy_at)) {
      const auto at = DurationFlag("--occupancy-at", text, false, err);
      if (!at) return std::nullopt;
      options.occupancy_at.push_back(*at);
    }
    std::sort(options.occupancy_at.begin(), options.occupancy_at.end());
  }
  Result<core::Quantity> checkpoint =
      core::ParseQuantity(flags.checkpoint, core::Scale::kMilli, core::Rounding::kDown);
  if (!checkpoint.ok() || checkpoint.value().value() < 0 || checkpoint.value().value() > 1000) {
    err << "quotient: error: --checkpoint \"" << flags.checkpoint
        << "\": a fraction from 0 to 1 is needed\n";
    return std::nullopt;
  }
  options.checkpoint_permille = static_cast<int32_t>(checkpoint.value().value());
  Result<core::Time> start = core::ParseRfc3339(flags.start);
  if (!start.ok()) {
    err << "quotient: error: --start: " << start.message() << "\n";
    return std::nullopt;
  }
  options.start = start.value();
  return options;
}

// A label for a run: the flag, else the stem of the file that makes it different.
std::string LabelOf(const std::string& flag, const std::string& path, const std::string& fallback) {
  if (!flag.empty()) return flag;
  if (!path.empty()) return std::filesystem::path(path).stem().string();
  return fallback;
}

// A label as a directory name: letters, digits, '-', '_' and '.' kept, the rest '_'.
std::string DirectoryName(const std::string& label) {
  std::string out = label;
  for (char& c : out) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    if (!keep) c = '_';
  }
  return out.empty() || out == "." || out == ".." ? "run" : out;
}

bool WriteCsvFiles(const simulate::SimulationResult& r, const std::filesystem::path& dir,
                   std::ostream& out, std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const bool written =
      WriteFile(
          dir / "cluster.csv", [&](std::ostream& o) { simulate::WriteClusterCsv(r, o); }, err) &&
      WriteFile(
          dir / "queues.csv", [&](std::ostream& o) { simulate::WriteQueuesCsv(r, o); }, err) &&
      WriteFile(
          dir / "pods.csv", [&](std::ostream& o) { simulate::WritePodsCsv(r, o); }, err);
  if (written) out << "CSV: " << (dir / "cluster.csv").string() << ", queues.csv, pods.csv\n";
  return written;
}

size_t ObjectCount(const core::ClusterObjects& o) {
  return o.nodes.size() + o.pods.size() + o.queues.size() + o.pod_groups.size() +
         o.priority_classes.size() + o.pod_disruption_budgets.size();
}

// --compare FILE: Kubernetes objects go to --compare-with, a scheduler configuration to
// --compare-config. A file is objects when it reads as such (documents with apiVersion and
// kind), else a configuration when it reads as one.
std::optional<int> SortCompareFiles(SimulateFlags& flags, std::ostream& err) {
  for (const std::string& path : flags.compare) {
    std::istringstream no_stdin;
    const kube::LoadResult probe = kube::LoadManifests({path}, no_stdin);
    if (!probe.HasErrors() && ObjectCount(probe.objects) > 0) {
      flags.compare_with.push_back(path);
      continue;
    }
    framework::SchedulerConfig config;
    std::ostringstream config_error;
    if (LoadConfig(path, "", config, config_error)) {
      err << "quotient: error: --compare " << path
          << ": neither Kubernetes objects nor a scheduler configuration\n";
      PrintDiagnostics(probe.diagnostics, err);
      err << config_error.str();
      return kExitBadInput;
    }
    if (!flags.compare_config_path.empty()) {
      err << "quotient: error: --compare " << path << ": a second scheduler configuration (with "
          << flags.compare_config_path << "); one run is compared with one other\n";
      return kExitUsage;
    }
    flags.compare_config_path = path;
  }
  return std::nullopt;
}

bool ShowProgress(const std::string& mode, std::ostream& err) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return &err == &std::cerr && isatty(fileno(stderr)) != 0;
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
  cmd->add_option("--occupancy-at", flags.occupancy_at,
                  "Record every node's GPUs at these times, e.g. 1h,6h,12h (default: spread "
                  "over the run)");
  cmd->add_option("--csv", flags.csv_dir, "Write cluster.csv, queues.csv and pods.csv here");
  cmd->add_option("--html", flags.html_path, "Write a self-contained HTML report here");
  cmd->add_option("--label", flags.label, "This run's name in reports (default: the config's)");
  cmd->add_option("--compare-config", flags.compare_config_path,
                  "Also run under this scheduler configuration and compare");
  cmd->add_option("--compare-with", flags.compare_with,
                  "Also run with these objects laid over the inputs (same kind and name "
                  "replaced, others added) and compare");
  cmd->add_option("--compare", flags.compare,
                  "Also run with this scheduler configuration or these objects (told apart by "
                  "content) and compare");
  cmd->add_option("--compare-label", flags.compare_label,
                  "The compared run's name (default: its file's)");
  cmd->add_option("--progress", flags.progress, "Progress bar on standard error")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("inputs", flags.inputs, "Files, directories (*.yaml, *.yml, *.json) or -")
      ->required();
  return cmd;
}

int RunSimulate(const SimulateFlags& given, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err) {
  SimulateFlags flags = given;
  if (std::optional<int> failed = SortCompareFiles(flags, err)) return *failed;
  std::optional<simulate::SimulationOptions> shared = SharedOptions(flags, err);
  if (!shared) return kExitUsage;
  kube::LoadResult loaded = kube::LoadManifests(flags.inputs, stdin_stream);
  PrintDiagnostics(loaded.diagnostics, err);
  if (loaded.HasErrors()) return kExitBadInput;

  const bool comparing = !flags.compare_config_path.empty() || !flags.compare_with.empty();
  std::vector<RunInput> runs(comparing ? 2 : 1);
  runs[0].options = *shared;
  if (std::optional<int> failed =
          LoadConfig(flags.config_path, flags.actions, runs[0].options.config, err)) {
    return *failed;
  }
  runs[0].report.label = LabelOf(flags.label, flags.config_path, comparing ? "baseline" : "run");
  runs[0].report.description =
      flags.config_path.empty() ? "default configuration" : "configuration " + flags.config_path;
  if (comparing) {
    RunInput& other = runs[1];
    other.options = *shared;
    const std::string& config =
        flags.compare_config_path.empty() ? flags.config_path : flags.compare_config_path;
    if (std::optional<int> failed = LoadConfig(config, flags.actions, other.options.config, err)) {
      return *failed;
    }
    other.objects = loaded.objects;
    std::string description = config.empty() ? "default configuration" : "configuration " + config;
    if (!flags.compare_with.empty()) {
      kube::LoadResult changes = kube::LoadManifests(flags.compare_with, stdin_stream);
      PrintDiagnostics(changes.diagnostics, err);
      if (changes.HasErrors()) return kExitBadInput;
      other.objects = core::OverlayObjects(std::move(other.objects), std::move(changes.objects));
      for (const std::string& path : flags.compare_with) description += ", with " + path;
    }
    other.report.description = std::move(description);
    other.report.label = LabelOf(
        flags.compare_label,
        flags.compare_config_path.empty() ? flags.compare_with.front() : flags.compare_config_path,
        "compared");
    if (other.report.label == runs[0].report.label) other.report.label += " (compared)";
  }
  runs[0].objects = std::move(loaded.objects);
  for (RunInput& run : runs) {
    run.options.scheduler_name = SchedulerNameOf(flags.scheduler_name, run.options.config);
  }

  std::unique_ptr<ProgressBar> bar;
  if (ShowProgress(flags.progress, err)) bar = std::make_unique<ProgressBar>(err, runs.size());
  for (size_t i = 0; i < runs.size() && bar; ++i) {
    runs[i].options.progress = [&bar, i](const simulate::Progress& p) { bar->Update(i, p); };
  }
  // Each run is pure (objects in, samples out), so a comparison's two runs go in parallel.
  std::vector<std::future<Result<simulate::SimulationResult>>> pending;
  for (RunInput& run : runs) {
    pending.push_back(std::async(std::launch::async, [&run] {
      return simulate::Simulate(std::move(run.objects), run.options);
    }));
  }
  std::vector<simulate::SimulationResult> results;
  std::string failure;
  for (auto& f : pending) {
    Result<simulate::SimulationResult> r = f.get();
    if (!r.ok()) {
      if (failure.empty()) failure = r.message();
      continue;
    }
    results.push_back(std::move(r).value());
  }
  bar.reset();
  if (!failure.empty()) {
    err << "quotient: error: " << failure << "\n";
    return kExitBadInput;
  }

  PrintDiagnostics(results[0].diagnostics, err);
  // The compared run reads other objects: its own warnings too, those the first did not give.
  for (size_t i = 1; i < results.size(); ++i) {
    std::vector<core::Diagnostic> own;
    for (const core::Diagnostic& d : results[i].diagnostics) {
      const bool seen = std::any_of(results[0].diagnostics.begin(), results[0].diagnostics.end(),
                                    [&](const core::Diagnostic& o) {
                                      return o.object == d.object && o.message == d.message;
                                    });
      if (!seen) own.push_back(d);
    }
    PrintDiagnostics(own, err);
  }
  std::vector<simulate::ReportRun> reports;
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].report.result = &results[i];
    reports.push_back(runs[i].report);
    if (comparing)
      out << "== " << runs[i].report.label << ": " << runs[i].report.description << "\n";
    simulate::WriteSummary(results[i], out);
  }
  if (!flags.csv_dir.empty()) {
    for (size_t i = 0; i < runs.size(); ++i) {
      std::filesystem::path dir(flags.csv_dir);
      if (comparing) dir /= DirectoryName(runs[i].report.label);
      if (!WriteCsvFiles(results[i], dir, out, err)) return kExitBadInput;
    }
  }
  if (!flags.html_path.empty()) {
    std::string title = "Simulation of " + flags.inputs.front();
    for (size_t i = 1; i < flags.inputs.size(); ++i) title += ", " + flags.inputs[i];
    if (!WriteFile(
            flags.html_path, [&](std::ostream& o) { simulate::WriteHtmlReport(title, reports, o); },
            err)) {
      return kExitBadInput;
    }
    out << "HTML report: " << flags.html_path << "\n";
  }
  return kExitOk;
}

}  // namespace quotient::cli
