// `quotient schedule`: load a cluster described as Kubernetes objects, run scheduling cycles on
// it, and print the decisions, pods, pod groups and queues (docs/schedule-command.md).
//
//   quotient schedule [--config FILE] [--actions LIST] [--cycles N] [--scheduler-name NAME]
//                     [--now RFC3339] [-o table|json|yaml] [--delete-evicted] [--profile]
//                     FILE|DIR|- ...
//
// Exit codes: 0 the run completed, 1 input that cannot be read, 2 bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace quotient::cli {

struct ScheduleFlags {
  std::string config_path;
  std::string actions;  // comma separated; empty = from the configuration
  int cycles = 1;
  std::string scheduler_name;  // empty = from the configuration, else "quotient"
  std::string now;             // RFC3339; empty = the current time
  std::string output = "table";
  bool delete_evicted = false;
  bool profile = false;  // per-phase wall times, object counts and peak memory on stderr
  // The straightforward search without the shortcuts (SchedulerConfig::reference_search): same
  // decisions, slower; for checking the shortcuts on your own cluster.
  bool reference_search = false;
  // --node-pool: the node pool scheduled, as the KAI scheduler instance serving it would see the
  // cluster ("" the default pool: objects without the node-pool label); --all-node-pools: every
  // object in one run instead.
  std::string node_pool;
  bool all_node_pools = false;
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::vector<std::string> inputs;
};

// Registers the subcommand; `flags` must outlive parsing.
CLI::App* AddScheduleCommand(CLI::App& app, ScheduleFlags& flags);

// Runs it after parsing. Writes the report to `out` and diagnostics (and the --profile table)
// to `err`; returns the exit code. `stdin_stream` serves the "-" input.
int RunSchedule(const ScheduleFlags& flags, std::istream& stdin_stream, std::ostream& out,
                std::ostream& err);

}  // namespace quotient::cli
