// `quotient simulate`: replay a cluster and a workload over simulated time with the real
// scheduling core, print a summary and write CSV time series (docs/simulate-command.md).
//
//   quotient simulate [--config FILE] [--actions LIST] [--scheduler-name NAME] [--period 1s]
//                     [--until DURATION] [--settle 1h] [--checkpoint FRACTION]
//                     [--start RFC3339] [--occupancy-at LIST] [--csv DIR] [--html FILE]
//                     [--label NAME] [--compare FILE]... [--compare-config FILE]
//                     [--compare-with FILE]...
//                     [--compare-label NAME] [--progress auto|always|never] FILE|DIR|- ...
//
// With --compare (a configuration or objects, told apart by content), --compare-config or
// --compare-with, the same workload runs a second time (on another
// thread) under the other configuration or with the other objects laid over the inputs, and
// both runs are reported side by side.
//
// Exit codes: 0 the run completed, 1 input that cannot be read, 2 bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace quotient::cli {

struct SimulateFlags {
  std::string config_path;
  std::string actions;
  std::string scheduler_name;
  std::string period = "1s";
  std::string until;  // empty: until everything has settled
  std::string settle = "1h";
  std::string checkpoint = "0";  // fraction of progress an evicted pod keeps
  std::string start = "2026-01-01T00:00:00Z";
  std::string occupancy_at;  // comma-separated Go durations
  std::string csv_dir;
  std::string html_path;
  std::string label;
  std::string compare_config_path;
  std::vector<std::string> compare_with;
  std::vector<std::string> compare;  // either of the above, told apart by content
  std::string compare_label;
  std::string progress = "auto";
  std::vector<std::string> inputs;
};

CLI::App* AddSimulateCommand(CLI::App& app, SimulateFlags& flags);

int RunSimulate(const SimulateFlags& flags, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err);

}  // namespace quotient::cli
