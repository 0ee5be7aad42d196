#include "cli/generate_command.h"

#include <fstream>

#include "generate/cluster_generator.h"
#include "generate/demo_day.h"

namespace quotient::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitCannotWrite = 1;
constexpr int kExitUsage = 2;

// A flag that shapes the mixed workload, which reclaim-1000 does not have.
struct MixedOnlyFlag {
  const char* name;
  bool given;
};

// CLI11 would read "-1" into a uint64_t as 2^64 - 1, and NonNegativeNumber's message prints a
// 300-digit bound: plain digits only.
CLI::Validator UnsignedInteger() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos) return "";
        return "Value " + value + " is not a whole number >= 0";
      },
      "UINT");
}

template <typename T, typename U>
void Override(const std::optional<T>& flag, U& field) {
  if (flag) field = static_cast<U>(*flag);
}

}  // namespace

GenerateCommands AddGenerateCommand(CLI::App& app, GenerateClusterFlags& flags,
                                    GenerateDemoFlags& demo_flags) {
  CLI::App* generate = app.add_subcommand("generate", "Generate test input");
  generate->require_subcommand(1);
  CLI::App* cmd = generate->add_subcommand(
      "cluster",
      "Write a synthetic cluster (Nodes, Pods, Queues, PodGroups, PriorityClasses) for "
      "`quotient schedule` and benchmarks; deterministic for a given seed");
  cmd->add_option("--preset", flags.preset, "Starting point; the flags below override it")
      ->check(CLI::IsMember(generate::PresetNames()));
  cmd->add_option("--nodes", flags.nodes, "Nodes of 128 cores, 1 TiB and 110 pods each")
      ->check(CLI::Range(1, generate::kMaxNodes));
  cmd->add_option("--gpus-per-node", flags.gpus_per_node, "GPUs per node (default 8)")
      ->check(CLI::Range(generate::kMinGpusPerNode, generate::kMaxGpusPerNode));
  cmd->add_option("--gpu-memory", flags.gpu_memory_mib,
                  "GPU memory in MiB, the nvidia.com/gpu.memory label (default 81920)")
      ->check(CLI::Range(generate::kMinGpuMemoryMib, generate::kMaxGpuMemoryMib));
  cmd->add_flag("--mixed-gpus", flags.mixed_gpus,
                "Make every fourth node a second shape: 4 GPUs of 40960 MiB");
  cmd->add_option("--pools", flags.pools,
                  "Node pools (kai.scheduler/node-pool=pool-<k>); 1 = no label")
      ->check(CLI::Range(1, generate::kMaxNodes));
  cmd->add_option("--departments", flags.departments, "Top-level queues")
      ->check(CLI::Range(1, generate::kMaxQueuesPerLevel));
  cmd->add_option("--projects", flags.projects_per_department, "Leaf queues per department")
      ->check(CLI::Range(1, generate::kMaxQueuesPerLevel));
  cmd->add_option("--running-pods", flags.running_pods,
                  "Running pods, packed node by node (0.7 GPU each on average)")
      ->check(CLI::Range(0, generate::kMaxRunningPods));
  cmd->add_option("--pending-groups", flags.pending_groups, "Pending pod groups")
      ->check(CLI::Range(0, generate::kMaxPendingGroups));
  cmd->add_option("--seed", flags.seed, "Random seed (default 42)")->check(UnsignedInteger());
  cmd->add_option("--format", flags.format, "json (one List, default) or yaml (a stream)")
      ->check(CLI::IsMember({"json", "yaml"}));
  cmd->add_option("-o,--output", flags.output_path, "Write to FILE instead of standard output");

  CLI::App* demo = generate->add_subcommand(
      "demo",
      "Write the simulation demo: a day of mixed work on 32 nodes of 8 GPUs, two departments "
      "and five projects, for `quotient simulate`");
  demo->add_option("--seed", demo_flags.seed, "Random seed of arrivals and durations (default 1)")
      ->check(UnsignedInteger());
  demo->add_option("--format", demo_flags.format, "yaml (a stream, default) or json (one List)")
      ->check(CLI::IsMember({"json", "yaml"}));
  demo->add_option("-o,--output", demo_flags.output_path,
                   "Write to FILE instead of standard output");
  return {cmd, demo};
}

int RunGenerateCluster(const GenerateClusterFlags& flags, std::ostream& out, std::ostream& err) {
  Result<generate::ClusterSpec> preset = generate::PresetSpec(flags.preset);
  if (!preset.ok()) {
    err << "quotient: error: --preset: " << preset.message() << "\n";
    return kExitUsage;
  }
  generate::ClusterSpec spec = preset.value();
  if (spec.workload == generate::Workload::kReclaimLargeJobs) {
    for (const MixedOnlyFlag& f :
         {MixedOnlyFlag{"--mixed-gpus", flags.mixed_gpus},
          MixedOnlyFlag{"--pools", flags.pools.has_value()},
          MixedOnlyFlag{"--departments", flags.departments.has_value()},
          MixedOnlyFlag{"--projects", flags.projects_per_department.has_value()},
          MixedOnlyFlag{"--running-pods", flags.running_pods.has_value()},
          MixedOnlyFlag{"--pending-groups", flags.pending_groups.has_value()},
          MixedOnlyFlag{"--seed", flags.seed.has_value()}}) {
      if (f.given) {
        err << "quotient: error: " << f.name << " does not apply to --preset " << flags.preset
            << " (its shape follows from --nodes and --gpus-per-node)\n";
        return kExitUsage;
      }
    }
  }
  Override(flags.nodes, spec.nodes);
  Override(flags.gpus_per_node, spec.gpus_per_node);
  Override(flags.gpu_memory_mib, spec.gpu_memory_mib);
  spec.mixed_gpus = spec.mixed_gpus || flags.mixed_gpus;
  Override(flags.pools, spec.node_pools);
  Override(flags.departments, spec.departments);
  Override(flags.projects_per_department, spec.projects_per_department);
  Override(flags.running_pods, spec.running_pods);
  Override(flags.pending_groups, spec.pending_groups);
  Override(flags.seed, spec.seed);

  Result<generate::ClusterPlan> plan = generate::PlanCluster(spec);
  if (!plan.ok()) {
    err << "quotient: error: " << plan.message() << "\n";
    return kExitUsage;
  }
  const generate::OutputFormat format =
      flags.format == "yaml" ? generate::OutputFormat::kYaml : generate::OutputFormat::kJson;
  if (flags.output_path.empty()) {
    generate::WriteCluster(plan.value(), format, out);
    out.flush();
    return out ? kExitOk : kExitCannotWrite;
  }
  std::ofstream file(flags.output_path, std::ios::binary | std::ios::trunc);
  if (file) generate::WriteCluster(plan.value(), format, file);
  file.close();
  if (!file) {
    err << "quotient: error: -o " << flags.output_path << ": cannot write the file\n";
    return kExitCannotWrite;
  }
  return kExitOk;
}

int RunGenerateDemo(const GenerateDemoFlags& flags, std::ostream& out, std::ostream& err) {
  const generate::OutputFormat format =
      flags.format == "json" ? generate::OutputFormat::kJson : generate::OutputFormat::kYaml;
  const auto write = [&](std::ostream& to) {
    generate::WriteObjects(
        [&](const generate::ObjectVisitor& visit) {
          generate::ForEachDemoDayObject(flags.seed, visit);
        },
        format, to);
  };
  if (flags.output_path.empty()) {
    write(out);
    out.flush();
    return out ? kExitOk : kExitCannotWrite;
  }
  std::ofstream file(flags.output_path, std::ios::binary | std::ios::trunc);
  if (file) write(file);
  file.close();
  if (!file) {
    err << "quotient: error: -o " << flags.output_path << ": cannot write the file\n";
    return kExitCannotWrite;
  }
  return kExitOk;
}

}  // namespace quotient::cli
