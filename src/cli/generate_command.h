// `quotient generate cluster`: write a synthetic cluster as Kubernetes objects, in the form
// `quotient schedule` reads (docs/generate-command.md).
//
//   quotient generate cluster [--preset small|large|xlarge|reclaim-1000] [--nodes N]
//                             [--gpus-per-node N] [--gpu-memory MIB] [--mixed-gpus] [--pools K]
//                             [--departments N] [--projects N] [--running-pods N]
//                             [--pending-groups N] [--seed S] [--format json|yaml] [-o FILE]
//
// The preset (default small) gives every field; each flag given overrides its field, wherever it
// stands on the command line. Exit codes: 0 written, 1 the output file cannot be written, 2 bad
// usage (a value out of range, an unknown preset or format, running pods that do not fit).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace quotient::cli {

struct GenerateClusterFlags {
  std::string preset = "small";
  // Unset = the preset's value.
  std::optional<int> nodes;
  std::optional<int> gpus_per_node;
  std::optional<int64_t> gpu_memory_mib;
  bool mixed_gpus = false;
  std::optional<int> pools;
  std::optional<int> departments;
  std::optional<int> projects_per_department;
  std::optional<int> running_pods;
  std::optional<int> pending_groups;
  std::optional<uint64_t> seed;
  std::string format = "json";
  std::string output_path;  // empty = standard output
};

// Registers `generate` and its `cluster` subcommand; returns `cluster`. `flags` must outlive
// parsing.
struct GenerateDemoFlags {
  uint64_t seed = 1;
  std::string format = "yaml";
  std::string output_path;  // empty = standard output
};

struct GenerateCommands {
  CLI::App* cluster;
  CLI::App* demo;
};

// Registers `generate` and its `cluster` and `demo` subcommands. The flags must outlive parsing.
GenerateCommands AddGenerateCommand(CLI::App& app, GenerateClusterFlags& cluster_flags,
                                    GenerateDemoFlags& demo_flags);

// Runs it after parsing: the cluster goes to `out` (or the -o file), messages to `err`; returns
// the exit code.
int RunGenerateCluster(const GenerateClusterFlags& flags, std::ostream& out, std::ostream& err);

// `quotient generate demo`: the bundled simulation demo (generate/demo_day.h), a day of mixed
// work on 32 nodes of 8 GPUs.
int RunGenerateDemo(const GenerateDemoFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace quotient::cli
