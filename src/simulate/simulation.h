// Simulate: a cluster and a workload replayed over simulated time by the real scheduling core —
// the same model, session and actions the service runs — for `quotient simulate` (issue 8).
//
// Discrete events: pods arrive (workload_times.h), scheduling cycles run every `period` of
// simulated time, a bound pod runs for its duration and completes, an evicted pod returns to
// pending as its controller would recreate it (keeping `checkpoint_permille` of its progress).
// Time jumps: while nothing waits to be placed the next cycle is at the next arrival or
// completion (on the period's grid); after a cycle that could not place what waits, at the next
// event but no later than `settle` / 60 (a minute by default), so time-based rules (min-runtime
// protection, stale-gang eviction) act within that of their moment; with no events left the run
// ends once nothing waits, or once cycles have decided nothing for `settle`.
//
// Pure and deterministic: objects in, samples out; no clock, no randomness, no I/O.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/diagnostic.h"
#include "core/objects.h"
#include "framework/config.h"

namespace quotient::simulate {

struct SimulationOptions {
  framework::SchedulerConfig config;
  std::string scheduler_name = "quotient";
  std::string queue_label_key = "kai.scheduler/queue";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  core::Time start{};                         // the wall-clock time of t = 0
  std::chrono::seconds period{1};             // between scheduling cycles
  std::optional<std::chrono::seconds> until;  // stop at this time; default: once settled
  std::chrono::seconds settle{std::chrono::hours(1)};
  int32_t checkpoint_permille = 0;  // progress an evicted pod keeps: 0 restarts from zero
  int32_t gang_gpus = 8;            // a node with fewer idle GPUs strands them (fragmentation)
};

enum class PodState { kPending, kRunning, kCompleted };
std::string_view PodStateName(PodState s);

// One pod of the workload at the end of the run.
struct PodOutcome {
  std::string pod;  // ns/name
  std::string pod_group;
  std::string queue;
  int64_t gpu_milli = 0;  // what it counts for in its queue's GPU quota
  std::chrono::seconds arrival{0};
  std::optional<std::chrono::seconds> started;   // first bound
  std::optional<std::chrono::seconds> finished;  // completed
  int32_t evictions = 0;
  PodState state = PodState::kPending;
};

// The cluster as the cycle at `time` left it (after its decisions): what holds until the next.
struct ClusterSample {
  std::chrono::seconds time{0};
  int64_t gpu_milli = 0;            // GPUs of usable nodes
  int64_t allocated_gpu_milli = 0;  // held by the workload's pods
  int64_t pending_pods = 0;
  int64_t running_pods = 0;
  int64_t evictions = 0;               // so far
  int64_t lost_gpu_milli_seconds = 0;  // GPU time evictions destroyed, so far
  int64_t partly_used_gpus = 0;        // shared GPUs with room left
  int64_t stranded_gpus = 0;           // idle GPUs on nodes with < gang_gpus idle
};

// One queue at the same instant; fair share as that cycle computed it.
struct QueueSample {
  std::chrono::seconds time{0};
  std::string queue;
  int64_t allocated_gpu_milli = 0;
  int64_t fair_share_gpu_milli = 0;
  int64_t deserved_gpu_milli = 0;  // -1: unlimited
  int64_t pending_pods = 0;
};

struct SimulationResult {
  std::vector<ClusterSample> cluster;
  std::vector<QueueSample> queues;  // by time, then queue name
  std::vector<PodOutcome> pods;     // by key
  int64_t cycles = 0;
  std::chrono::seconds end{0};
  std::vector<core::Diagnostic> diagnostics;  // from reading the objects
};

// Fails (naming the object and field) on workload times that cannot be read.
Result<SimulationResult> Simulate(core::ClusterObjects objects, const SimulationOptions& options);

}  // namespace quotient::simulate
