// `quotient kubectl ...`, which kubectl runs as `kubectl quotient ...` when the binary is
// installed (or linked) as `kubectl-quotient` somewhere on PATH (main.cc tells by argv[0]):
//
//   kubectl quotient queues [--resource gpu|cpu|memory|all]   the queue tree and who borrows
//   kubectl quotient why POD|PODGROUP [-n NS]                  the pending reason, with numbers
//   kubectl quotient top                                       GPUs per node and per queue
//   kubectl quotient snapshot -o FILE                          the cluster, stripped, to a file
//   kubectl quotient what-if FILE                              a cycle after proposed changes
//
// Common flags: --kubeconfig, --context (the current kubeconfig otherwise), --from SNAPSHOT (read
// a snapshot file instead of the cluster), --scheduler-name (quotient), --config (the scheduler's
// configuration file), --node-pool-label-key, -o table|json|yaml (table by default; colour only
// on a terminal, never with NO_COLOR). The live answers come from one scheduling cycle run here,
// offline, on what the cluster holds now: the same core the scheduler runs.
//
// Exit codes: 0 done, 1 the cluster or a file could not be read (the message says why: no
// kubeconfig, CRDs not installed, permissions missing), 2 bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace quotient::cli {

struct PluginFlags {
  std::string kubeconfig;
  std::string context;
  std::string from;
  std::string scheduler_name = "quotient";
  std::string config_path;
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::string output = "table";
  std::string resource = "all";
  std::string target;
  std::string namespace_name;
  std::string snapshot_file;
  std::string changes_file;
};

struct PluginCommands {
  CLI::App* group = nullptr;
  CLI::App* queues = nullptr;
  CLI::App* why = nullptr;
  CLI::App* top = nullptr;
  CLI::App* snapshot = nullptr;
  CLI::App* what_if = nullptr;
};

PluginCommands AddPluginCommands(CLI::App& app, PluginFlags& flags);
// Runs whichever of the commands was parsed; `colour` = stdout is a terminal and NO_COLOR unset.
int RunPlugin(const PluginCommands& commands, const PluginFlags& flags, std::ostream& out,
              std::ostream& err, bool colour);

}  // namespace quotient::cli
