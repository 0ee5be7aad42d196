// The FGD paper's placement experiment (USENIX ATC'23, "Beware of Fragmentation"), replayed
// with Quotient's own placement (the allocate action's Placer) — `quotient bench fgd`, issue 9.
//
// The procedure of the paper's simulator (docs/traces.md §1.3 in the shared references):
//   1. the cluster is the trace's GPU nodes; their names get a per-seed random prefix, so ties
//      between equally scored nodes (broken by name) fall in a random but fixed order;
//   2. the pod list is sorted by name and shuffled with the seed;
//   3. it is topped up with pods drawn from it uniformly with replacement (`<name>-tuned-<i>`)
//      until the next would take the total GPU request past `tune` x the cluster's GPUs;
//   4. pods arrive one by one and never leave; each is tried once, and skipped if no node fits;
//   5. after each pod the allocated and the arrived GPU are recorded; events are binned by
//      arrived % = round(100 x arrived GPU / cluster GPU), and each bin holds the mean
//      allocation % of its events (the published analysis_allo_discrete.csv).
// Random numbers come from generate::DeterministicRandom, not Go's generator: the shuffles are
// the same in kind, not the same permutations, so single runs differ from the paper's while
// medians over seeds compare.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/objects.h"
#include "framework/config.h"
#include "traces/openb_trace.h"

namespace quotient::experiments {

inline constexpr int kMaxArrivedPercent = 130;

// A trace ready to replay: its objects, read once, and each pod's GPU request.
struct FgdWorkload {
  std::string name;  // "openb_pod_list_default"
  core::ClusterObjects objects;
  std::vector<int64_t> pod_gpu_milli;  // by objects.pods
  int64_t cluster_gpu_milli = 0;
};

Result<FgdWorkload> FgdWorkloadOf(const std::string& name, const traces::OpenbTrace& trace);

struct FgdOptions {
  uint64_t seed = 42;
  int64_t tune_permille = 1300;
  framework::SchedulerConfig config;  // the placement strategy under test
};

// Where the unallocated GPU is when 100% of the cluster's GPUs have arrived, and which pods
// failed until then.
struct FgdLeftover {
  int64_t free_gpu_milli = 0;
  int64_t cpu_short_gpu_milli = 0;  // on nodes with under 4 idle cores
  int64_t sliver_gpu_milli = 0;     // on partly used devices
  int64_t idle_gpus = 0;            // whole free devices
  int64_t cpu_only = 0;             // failed pods by kind
  int64_t shared = 0;
  int64_t one_gpu = 0;
  int64_t multi_gpu = 0;
};

struct FgdRun {
  std::string workload;
  uint64_t seed = 0;
  int64_t cluster_gpu_milli = 0;
  int64_t pods_tried = 0;
  int64_t pods_placed = 0;
  // Mean GPU allocation %, in hundredths, of the events whose arrived % rounds to 0..130; a bin
  // no event fell in takes its neighbour's (the published files have no gaps either).
  std::vector<int64_t> allocation_centi;
  std::optional<FgdLeftover> at_full;  // at the first arrival into the 100% bin
};

FgdRun ReplayFgd(const FgdWorkload& workload, const FgdOptions& options);

// round(100 * part / whole), halves to even as Python's round(), which binned the published runs.
int64_t RoundedPercent(int64_t part, int64_t whole);

}  // namespace quotient::experiments
