// `quotient bench fgd`: the FGD paper's placement experiment on the Alibaba openb traces, with
// Quotient's placement strategies, against the paper's published results (issue 9,
// docs/placement.md).
//
//   quotient bench fgd --nodes FILE --pods FILE [--pods FILE]... [--seeds 42-51]
//                      [--policies binpack,spread,binpack/spread] [--tune 1.3]
//                      [--published FILE] [--breakdown] [--plot DIR] [-o CSV]
//
// Prints, per pod list and policy, the median over seeds of the GPU left unallocated when 100% of
// the cluster's GPUs have been requested, beside the published medians of the paper's policies
// when --published names summary_unallocated_gpu_by_policy.csv; --breakdown then says where the
// unallocated GPU is at 100% (mean over seeds) and which pods failed; --plot draws the curves
// (ours, the paper's points) as DIR/<pod list>.svg. -o writes every run's curve
// in the shape of the published analysis_allo_discrete.csv. Exit codes: 0 done, 1 input that cannot
// be read, 2 bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace quotient::cli {

struct BenchFgdFlags {
  std::string nodes_csv;
  std::vector<std::string> pod_csvs;
  std::string seeds = "42-51";
  std::string policies = "binpack,spread";
  std::string tune = "1.3";
  std::string published_csv;
  std::string output_csv;
  bool breakdown = false;
  std::string plot_dir;
};

CLI::App* AddBenchCommand(CLI::App& app, BenchFgdFlags& flags);

int RunBenchFgd(const BenchFgdFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace quotient::cli
