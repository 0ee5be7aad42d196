#include "cli/trace_command.h"

#include <fstream>
#include <functional>
#include <ostream>

#include "cli/command_common.h"
#include "traces/openb_trace.h"
#include "traces/philly_trace.h"

namespace quotient::cli {
namespace {

// --limit, --format and -o, as every trace takes them.
void AddOutputFlags(CLI::App& cmd, std::optional<size_t>& limit, const std::string& limit_help,
                    std::string& format, std::string& output_path) {
  cmd.add_option("--limit", limit, limit_help)->check(CLI::PositiveNumber);
  cmd.add_option("--format", format, "Output format")->check(CLI::IsMember({"json", "yaml"}));
  cmd.add_option("-o,--output", output_path, "Write here instead of standard output");
}

// Writes the objects `for_each` visits to `output_path` (empty: `out`).
int WriteTrace(const std::function<void(const generate::ObjectVisitor&)>& for_each,
               const std::string& format, const std::string& output_path, std::ostream& out,
               std::ostream& err) {
  const auto write = [&](std::ostream& to) {
    generate::WriteObjects(
        for_each, format == "yaml" ? generate::OutputFormat::kYaml : generate::OutputFormat::kJson,
        to);
  };
  if (output_path.empty()) {
    write(out);
    return kExitOk;
  }
  std::ofstream file(output_path);
  if (file) write(file);
  if (!file) {
    err << "quotient: error: cannot write " << output_path << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

TraceCommands AddTraceCommand(CLI::App& app, TracePhillyFlags& philly, TraceOpenbFlags& openb) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Turn a public GPU-cluster trace into a cluster and workload to simulate");
  trace->require_subcommand(1);
  TraceCommands commands;
  commands.philly = trace->add_subcommand(
      "philly", "Microsoft Philly's job list (Pollux's philly.csv) and virtual clusters");
  commands.philly
      ->add_option("--jobs", philly.jobs_csv, "timestamp,duration,num_gpus,gpu_time,cluster CSV")
      ->required();
  commands.philly->add_option("--vcs", philly.vc_csv, "vc,node num CSV (Helios' philly_vc.csv)")
      ->required();
  AddOutputFlags(*commands.philly, philly.limit, "Only the first N jobs by submission",
                 philly.format, philly.output_path);

  commands.openb = trace->add_subcommand(
      "openb", "Alibaba's GPU cluster trace v2023 (the FGD paper's openb node and pod lists)");
  commands.openb
      ->add_option("--nodes", openb.nodes_csv,
                   "sn,cpu_milli,memory_mib,gpu,model CSV (openb_node_list_*.csv)")
      ->required();
  commands.openb
      ->add_option("--pods", openb.pods_csv,
                   "name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,"
                   "creation_time,deletion_time,scheduled_time] CSV (openb_pod_list_*.csv)")
      ->required();
  AddOutputFlags(*commands.openb, openb.limit, "Only the first N pods by creation", openb.format,
                 openb.output_path);
  return commands;
}

int RunTracePhilly(const TracePhillyFlags& flags, std::ostream& out, std::ostream& err) {
  Result<traces::PhillyTrace> trace = traces::ReadPhilly(flags.jobs_csv, flags.vc_csv, flags.limit);
  if (!trace.ok()) {
    err << "quotient: error: " << trace.message() << "\n";
    return kExitBadInput;
  }
  return WriteTrace(
      [&](const generate::ObjectVisitor& visit) {
        traces::ForEachPhillyObject(trace.value(), visit);
      },
      flags.format, flags.output_path, out, err);
}

int RunTraceOpenb(const TraceOpenbFlags& flags, std::ostream& out, std::ostream& err) {
  Result<traces::OpenbTrace> trace =
      traces::ReadOpenb(flags.nodes_csv, flags.pods_csv, flags.limit);
  if (!trace.ok()) {
    err << "quotient: error: " << trace.message() << "\n";
    return kExitBadInput;
  }
  return WriteTrace(
      [&](const generate::ObjectVisitor& visit) {
        traces::ForEachOpenbObject(trace.value(), visit);
      },
      flags.format, flags.output_path, out, err);
}

}  // namespace quotient::cli
