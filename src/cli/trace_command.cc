#include "cli/trace_command.h"

#include <fstream>
#include <ostream>

#include "cli/command_common.h"
#include "traces/philly_trace.h"

namespace quotient::cli {

CLI::App* AddTraceCommand(CLI::App& app, TracePhillyFlags& flags) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Turn a public GPU-cluster trace into a cluster and workload to simulate");
  trace->require_subcommand(1);
  CLI::App* philly = trace->add_subcommand(
      "philly", "Microsoft Philly's job list (Pollux's philly.csv) and virtual clusters");
  philly->add_option("--jobs", flags.jobs_csv, "timestamp,duration,num_gpus,gpu_time,cluster CSV")
      ->required();
  philly->add_option("--vcs", flags.vc_csv, "vc,node num CSV (Helios' philly_vc.csv)")->required();
  philly->add_option("--limit", flags.limit, "Only the first N jobs by submission")
      ->check(CLI::PositiveNumber);
  philly->add_option("--format", flags.format, "Output format")
      ->check(CLI::IsMember({"json", "yaml"}));
  philly->add_option("-o,--output", flags.output_path, "Write here instead of standard output");
  return philly;
}

int RunTracePhilly(const TracePhillyFlags& flags, std::ostream& out, std::ostream& err) {
  Result<traces::PhillyTrace> trace = traces::ReadPhilly(flags.jobs_csv, flags.vc_csv, flags.limit);
  if (!trace.ok()) {
    err << "quotient: error: " << trace.message() << "\n";
    return kExitBadInput;
  }
  const auto write = [&](std::ostream& to) {
    generate::WriteObjects(
        [&](const generate::ObjectVisitor& visit) {
          traces::ForEachPhillyObject(trace.value(), visit);
        },
        flags.format == "yaml" ? generate::OutputFormat::kYaml : generate::OutputFormat::kJson, to);
  };
  if (flags.output_path.empty()) {
    write(out);
    return kExitOk;
  }
  std::ofstream file(flags.output_path);
  if (file) write(file);
  if (!file) {
    err << "quotient: error: cannot write " << flags.output_path << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace quotient::cli
