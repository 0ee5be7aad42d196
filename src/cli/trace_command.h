// `quotient trace philly|openb`: a public trace turned into a cluster and a workload, written as
// the Kubernetes objects `quotient simulate` reads (docs/simulate-command.md, "Traces").
//
//   quotient trace philly --jobs philly.csv --vcs philly_vc.csv [--limit N]
//                         [--format json|yaml] [-o FILE]
//   quotient trace openb --nodes openb_node_list_gpu_node.csv --pods openb_pod_list_default.csv
//                        [--limit N] [--format json|yaml] [-o FILE]
//
// Exit codes: 0 written, 1 a trace file or the output cannot be read or written, 2 bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

namespace quotient::cli {

struct TracePhillyFlags {
  std::string jobs_csv;
  std::string vc_csv;
  std::optional<size_t> limit;
  std::string format = "json";
  std::string output_path;  // empty = standard output
};

struct TraceOpenbFlags {
  std::string nodes_csv;
  std::string pods_csv;
  std::optional<size_t> limit;
  std::string format = "json";
  std::string output_path;  // empty = standard output
};

struct TraceCommands {
  CLI::App* philly = nullptr;
  CLI::App* openb = nullptr;
};

// Registers `trace` and its subcommands.
TraceCommands AddTraceCommand(CLI::App& app, TracePhillyFlags& philly, TraceOpenbFlags& openb);

int RunTracePhilly(const TracePhillyFlags& flags, std::ostream& out, std::ostream& err);
int RunTraceOpenb(const TraceOpenbFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace quotient::cli
