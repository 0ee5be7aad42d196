// `quotient trace philly`: a public trace turned into a cluster and a workload, written as the
// Kubernetes objects `quotient simulate` reads (docs/simulate-command.md, "Traces").
//
//   quotient trace philly --jobs philly.csv --vcs philly_vc.csv [--limit N]
//                         [--format json|yaml] [-o FILE]
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

// Registers `trace` and its `philly` subcommand; returns `philly`.
CLI::App* AddTraceCommand(CLI::App& app, TracePhillyFlags& flags);

int RunTracePhilly(const TracePhillyFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace quotient::cli
