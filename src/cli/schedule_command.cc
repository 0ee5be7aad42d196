#include "cli/schedule_command.h"

#include <sys/resource.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "actions/registry.h"
#include "cli/command_common.h"
#include "cli/report_document.h"
#include "cli/report_table.h"
#include "cli/table.h"
#include "kube/loader.h"
#include "kube/scheduler_config_codec.h"
#include "kube/text_formats.h"
#include "scheduler/run.h"

namespace quotient::cli {
namespace {

// --profile: the CLI owns the clock; the scheduler library reads it only through
// RunOptions::monotonic_clock.
using ProfileClock = std::chrono::steady_clock;

std::chrono::nanoseconds MonotonicNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      ProfileClock::now().time_since_epoch());
}

// Microseconds below 1 ms, milliseconds below 1 s, else seconds.
std::string FormatDuration(std::chrono::nanoseconds d) {
  const double ns = static_cast<double>(d.count());
  std::ostringstream s;
  s << std::fixed;
  if (ns < 999'950.0) {
    s << std::setprecision(1) << ns / 1e3 << " µs";
  } else if (ns < 999'950'000.0) {
    s << std::setprecision(1) << ns / 1e6 << " ms";
  } else {
    s << std::setprecision(2) << ns / 1e9 << " s";
  }
  return s.str();
}

// The process's peak resident set so far (Linux reports ru_maxrss in KiB).
std::string PeakMemory() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return "unknown";
  const double mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  std::ostringstream s;
  s << std::fixed;
  if (mib < 1023.95) {
    s << std::setprecision(1) << mib << " MiB";
  } else {
    s << std::setprecision(2) << mib / 1024.0 << " GiB";
  }
  return s.str();
}

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

struct Profile {
  std::chrono::nanoseconds started{0};
  std::chrono::nanoseconds load{0};
  std::chrono::nanoseconds output{0};
  std::string objects;
};

std::string ProfileTable(const Profile& profile, const scheduler::RunReport& report) {
  Table t({"PHASE", "CYCLE", "TIME"});
  t.AddRow({"load", "-", FormatDuration(profile.load)});
  for (const scheduler::CycleReport& cycle : report.cycles) {
    for (const scheduler::PhaseTiming& phase : cycle.timings) {
      t.AddRow({phase.phase, std::to_string(cycle.index), FormatDuration(phase.duration)});
    }
  }
  t.AddRow({"output", "-", FormatDuration(profile.output)});
  t.AddRow({"total", "", FormatDuration(MonotonicNow() - profile.started)});
  t.AddRow({"peak memory", "", PeakMemory()});
  t.AddRow({"objects", "", profile.objects});
  return "PROFILE\n" + t.Render();
}

}  // namespace

CLI::App* AddScheduleCommand(CLI::App& app, ScheduleFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Run scheduling cycles on a cluster given as Kubernetes objects and report");
  AddConfigFlags(*cmd, flags.config_path, flags.actions);
  cmd->add_option("--cycles", flags.cycles, "Number of scheduling cycles (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Schedule only pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--now", flags.now, "The clock for time-based rules, RFC3339 (default: now)");
  cmd->add_option("-o,--output", flags.output, "Output format")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  cmd->add_option("--node-pool", flags.node_pool,
                  "Schedule this node pool, as the KAI scheduler serving it would (default: the "
                  "default pool, the objects without the node-pool label)");
  cmd->add_flag("--all-node-pools", flags.all_node_pools,
                "Schedule every node pool in one run (fair share over all of them)");
  cmd->add_option("--node-pool-label-key", flags.node_pool_label_key,
                  "The node-pool label (default kai.scheduler/node-pool)");
  cmd->add_flag("--delete-evicted", flags.delete_evicted,
                "Evicted pods are deleted instead of re-created as Pending");
  cmd->add_flag("--profile", flags.profile,
                "Print per-phase wall times, object counts and peak memory on stderr");
  cmd->add_flag("--reference-search", flags.reference_search,
                "Search without the shortcuts (same decisions, slower): a check of the shortcuts");
  cmd->add_option("inputs", flags.inputs, "Files, directories (*.yaml, *.yml, *.json) or - ")
      ->required();
  return cmd;
}

int RunSchedule(const ScheduleFlags& flags, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err) {
  Profile profile;
  profile.started = MonotonicNow();
  scheduler::RunOptions options;
  if (std::optional<int> failed =
          LoadConfig(flags.config_path, flags.actions, options.config, err)) {
    return *failed;
  }
  options.config.reference_search = flags.reference_search;
  options.scheduler_name = SchedulerNameOf(flags.scheduler_name, options.config);
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
  if (!flags.all_node_pools) options.node_pool = flags.node_pool;
  options.node_pool_label_key = flags.node_pool_label_key;
  options.delete_evicted = flags.delete_evicted;

  for (const std::string& name : options.config.actions) {
    if (!actions::IsActionAvailable(name)) {
      err << "quotient: note: action \"" << name
          << "\" is accepted but has no effect in this version\n";
    }
  }

  const std::chrono::nanoseconds load_started = MonotonicNow();
  kube::LoadResult loaded = kube::LoadManifests(flags.inputs, stdin_stream);
  profile.load = MonotonicNow() - load_started;
  PrintDiagnostics(loaded.diagnostics, err);
  if (loaded.HasErrors()) return kExitBadInput;
  if (flags.profile) {
    const core::ClusterObjects& o = loaded.objects;
    profile.objects = Count(o.nodes.size(), "node") + ", " + Count(o.pods.size(), "pod") + ", " +
                      Count(o.pod_groups.size(), "pod group") + ", " +
                      Count(o.queues.size(), "queue");
    options.monotonic_clock = MonotonicNow;
  }

  const scheduler::RunReport report = scheduler::Run(std::move(loaded.objects), options);
  PrintDiagnostics(report.diagnostics, err);
  const std::chrono::nanoseconds output_started = MonotonicNow();
  if (flags.output == "json") {
    out << ToJson(ReportDocument(report));
  } else if (flags.output == "yaml") {
    out << ToYaml(ReportDocument(report));
  } else {
    out << ReportTables(report);
  }
  if (flags.profile) {
    out.flush();
    profile.output = MonotonicNow() - output_started;
    err << ProfileTable(profile, report);
  }
  return kExitOk;
}

}  // namespace quotient::cli
