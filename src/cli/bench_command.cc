#include "cli/bench_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "cli/command_common.h"
#include "core/quantity.h"
#include "experiments/fgd_plot.h"
#include "experiments/fgd_replay.h"
#include "experiments/fgd_results.h"
#include "traces/openb_trace.h"

namespace quotient::cli {
namespace {

// The paper's policies, in its order, as the published files name them.
constexpr const char* kPublishedPolicies[] = {"01-Random",     "02-DotProd", "03-GpuClustering",
                                              "04-GpuPacking", "05-BestFit", "06-FGD"};

// "42-51" or "42,45".
std::optional<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  for (const std::string& part : SplitActions(text)) {
    const size_t dash = part.find('-');
    try {
      if (dash == std::string::npos) {
        seeds.push_back(std::stoull(part));
        continue;
      }
      const uint64_t first = std::stoull(part.substr(0, dash));
      const uint64_t last = std::stoull(part.substr(dash + 1));
      if (last < first || last - first > 1000) return std::nullopt;
      for (uint64_t s = first; s <= last; ++s) seeds.push_back(s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (seeds.empty()) return std::nullopt;
  return seeds;
}

// A policy's scheduler configuration: the nodeplacement plugin's GPU strategy, and its CPU
// strategy after a slash when it differs ("binpack/spread"); only allocate runs.
std::optional<framework::SchedulerConfig> PolicyConfig(const std::string& policy) {
  const size_t slash = policy.find('/');
  const std::string gpu = policy.substr(0, slash);
  const std::string cpu = slash != std::string::npos ? policy.substr(slash + 1)
                          : gpu == "fragmentation"   ? "binpack"
                                                     : gpu;
  if (gpu != "binpack" && gpu != "spread" && gpu != "fragmentation") return std::nullopt;
  if (cpu != "binpack" && cpu != "spread") return std::nullopt;
  framework::SchedulerConfig config;
  config.actions = {"allocate"};
  config.tiers = {
      framework::Tier{{framework::PluginOption{"nodeplacement", {{"gpu", gpu}, {"cpu", cpu}}}}}};
  return config;
}

std::string Centi(int64_t v) { return fmt::format("{}.{:02d}", v / 100, v % 100); }

// One row of the --breakdown table: means over the runs.
std::string Breakdown(const std::string& workload, const std::string& policy,
                      const std::vector<experiments::FgdRun>& runs) {
  experiments::FgdLeftover sum;
  int64_t n = 0;
  for (const experiments::FgdRun& r : runs) {
    if (!r.at_full) continue;
    ++n;
    sum.free_gpu_milli += r.at_full->free_gpu_milli;
    sum.cpu_short_gpu_milli += r.at_full->cpu_short_gpu_milli;
    sum.sliver_gpu_milli += r.at_full->sliver_gpu_milli;
    sum.idle_gpus += r.at_full->idle_gpus;
    sum.cpu_only += r.at_full->cpu_only;
    sum.shared += r.at_full->shared;
    sum.one_gpu += r.at_full->one_gpu;
    sum.multi_gpu += r.at_full->multi_gpu;
  }
  if (n == 0) return fmt::format("{:<28} {:<14} (never reached 100%)\n", workload, policy);
  const auto gpus = [&](int64_t milli) { return std::to_string(milli / 1000 / n); };
  return fmt::format("{:<28} {:<14} {:>8} {:>9} {:>8} {:>6} {:>6} {:>7} {:>6} {:>6}\n", workload,
                     policy, gpus(sum.free_gpu_milli), gpus(sum.cpu_short_gpu_milli),
                     gpus(sum.sliver_gpu_milli), sum.idle_gpus / n, sum.cpu_only / n,
                     sum.shared / n, sum.one_gpu / n, sum.multi_gpu / n);
}

}  // namespace

CLI::App* AddBenchCommand(CLI::App& app, BenchFgdFlags& flags) {
  CLI::App* bench =
      app.add_subcommand("bench", "Measure the scheduler against published experiments");
  bench->require_subcommand(1);
  CLI::App* fgd = bench->add_subcommand(
      "fgd", "The FGD paper's (ATC'23) placement experiment on the Alibaba openb traces");
  fgd->add_option("--nodes", flags.nodes_csv, "openb node list (sn,cpu_milli,memory_mib,gpu,model)")
      ->required();
  fgd->add_option("--pods", flags.pod_csvs, "openb pod lists, each an experiment")->required();
  fgd->add_option("--seeds", flags.seeds, "Seeds, as 42-51 or 42,43 (default 42-51)");
  fgd->add_option(
      "--policies", flags.policies,
      "Placement policies: binpack, spread, or GPU/CPU as binpack/spread (default binpack,spread)");
  fgd->add_option("--tune", flags.tune, "Top the pods up to this times the cluster's GPUs (1.3)");
  fgd->add_option("--published", flags.published_csv,
                  "summary_unallocated_gpu_by_policy.csv: print the paper's medians beside ours");
  fgd->add_option("--plot", flags.plot_dir,
                  "Write DIR/<pod list>.svg: unallocated GPU % against arrived %, ours and the "
                  "paper's");
  fgd->add_flag("--breakdown", flags.breakdown,
                "Also print where the unallocated GPU is at 100% arrived, and which pods failed");
  fgd->add_option("-o,--output", flags.output_csv,
                  "Write every run's allocation curve here (analysis_allo_discrete.csv's shape)");
  return fgd;
}

int RunBenchFgd(const BenchFgdFlags& flags, std::ostream& out, std::ostream& err) {
  const std::optional<std::vector<uint64_t>> seeds = ParseSeeds(flags.seeds);
  if (!seeds) {
    err << "quotient: error: --seeds \"" << flags.seeds << "\": give seeds as 42-51 or 42,43\n";
    return kExitUsage;
  }
  std::vector<std::pair<std::string, framework::SchedulerConfig>> policies;
  for (const std::string& name : SplitActions(flags.policies)) {
    std::optional<framework::SchedulerConfig> config = PolicyConfig(name);
    if (!config) {
      err << "quotient: error: --policies: unknown policy \"" << name << "\" (binpack, spread)\n";
      return kExitUsage;
    }
    policies.emplace_back(name, std::move(*config));
  }
  Result<core::Quantity> tune =
      core::ParseQuantity(flags.tune, core::Scale::kMilli, core::Rounding::kDown);
  if (!tune.ok() || tune.value().value() < 1000 || tune.value().value() > 3000) {
    err << "quotient: error: --tune \"" << flags.tune << "\": a factor from 1 to 3 is needed\n";
    return kExitUsage;
  }
  experiments::PublishedMedians published;
  if (!flags.published_csv.empty()) {
    Result<experiments::PublishedMedians> read =
        experiments::ReadPublishedMedians(flags.published_csv);
    if (!read.ok()) {
      err << "quotient: error: " << read.message() << "\n";
      return kExitBadInput;
    }
    published = std::move(read).value();
  }
  std::ofstream csv;
  if (!flags.output_csv.empty()) {
    csv.open(flags.output_csv);
    if (!csv) {
      err << "quotient: error: cannot write " << flags.output_csv << "\n";
      return kExitBadInput;
    }
    experiments::WriteAllocationCsvHeader(csv);
  }

  out << "Unallocated GPU % at 100% arrived, median of " << seeds->size()
      << " seeds (lower is better)\n";
  out << fmt::format("{:<28}", "WORKLOAD");
  for (const auto& [name, config] : policies) out << fmt::format(" {:>9}", name);
  if (!published.empty()) {
    for (const char* p : kPublishedPolicies) out << fmt::format(" {:>14}", p);
  }
  out << fmt::format(" {:>9}\n", "SECONDS");
  std::vector<std::string> breakdowns;
  if (flags.breakdown) {
    breakdowns.push_back(fmt::format(
        "\nAt 100% arrived, mean over seeds: free GPUs (on nodes with under 4 idle cores, in "
        "slivers of partly used GPUs, whole idle GPUs); pods failed so far by kind\n{:<28} {:<14} "
        "{:>8} {:>9} {:>8} {:>6} {:>6} {:>7} {:>6} {:>6}\n",
        "WORKLOAD", "POLICY", "FREE", "CPU_SHORT", "SLIVERS", "IDLE", "F_CPU", "F_SHARE", "F_1GPU",
        "F_MULTI"));
  }
  for (const std::string& pods_csv : flags.pod_csvs) {
    Result<traces::OpenbTrace> trace = traces::ReadOpenb(flags.nodes_csv, pods_csv);
    if (!trace.ok()) {
      err << "quotient: error: " << trace.message() << "\n";
      return kExitBadInput;
    }
    const std::string workload = std::filesystem::path(pods_csv).stem().string();
    Result<experiments::FgdWorkload> w = experiments::FgdWorkloadOf(workload, trace.value());
    if (!w.ok()) {
      err << "quotient: error: " << w.message() << "\n";
      return kExitBadInput;
    }
    const auto started = std::chrono::steady_clock::now();
    out << fmt::format("{:<28}", workload);
    std::vector<experiments::PlotLine> lines;
    for (const auto& [name, config] : policies) {
      std::vector<experiments::FgdRun> runs;
      for (uint64_t seed : *seeds) {
        experiments::FgdOptions options;
        options.seed = seed;
        options.tune_permille = tune.value().value();
        options.config = config;
        runs.push_back(experiments::ReplayFgd(w.value(), options));
        if (csv.is_open()) {
          experiments::WriteAllocationCsvRow(runs.back(), name, options.tune_permille, csv);
        }
      }
      out << fmt::format(" {:>9}", Centi(experiments::MedianUnallocatedCenti(runs))) << std::flush;
      if (flags.breakdown) breakdowns.push_back(Breakdown(workload, name, runs));
      experiments::PlotLine& line = lines.emplace_back();
      line.label = name;
      for (int a = 0; a <= experiments::kMaxArrivedPercent; ++a) {
        line.unallocated_centi.push_back(experiments::MedianUnallocatedCenti(runs, a));
      }
    }
    if (!published.empty()) {
      for (const char* p : kPublishedPolicies) {
        const auto it = published.find({workload, p});
        const bool known = it != published.end() && it->second.count(100) > 0;
        out << fmt::format(" {:>14}", known ? Centi(it->second.at(100)) : "-");
      }
    }
    if (!flags.plot_dir.empty()) {
      std::vector<experiments::PlotMarkers> markers;
      for (const char* p : kPublishedPolicies) {
        const auto it = published.find({workload, p});
        if (it != published.end()) markers.push_back({p, it->second});
      }
      std::error_code ec;
      std::filesystem::create_directories(flags.plot_dir, ec);
      const std::filesystem::path path =
          std::filesystem::path(flags.plot_dir) / (workload + ".svg");
      std::ofstream svg(path);
      if (svg) {
        experiments::WriteUnallocatedPlot(
            workload + ": unallocated GPU, median of " + std::to_string(seeds->size()) + " seeds",
            lines, markers, 70, svg);
      }
      if (!svg) {
        err << "quotient: error: cannot write " << path.string() << "\n";
        return kExitBadInput;
      }
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    out << fmt::format(" {:>9}\n", Centi(seconds / 10));
  }
  for (const std::string& line : breakdowns) out << line;
  if (csv.is_open()) {
    csv.close();
    if (!csv) {
      err << "quotient: error: cannot write " << flags.output_csv << "\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

}  // namespace quotient::cli
