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
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/diagnostic.h"
#include "core/objects.h"
#include "framework/config.h"

namespace quotient::simulate {

// How far a run has come, after each cycle.
struct Progress {
  std::chrono::seconds time{0};
  int64_t arrived = 0;  // pods of the workload that have arrived
  int64_t pods = 0;     // pods of the workload
  int64_t cycles = 0;
};

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
  // When to record every node's GPUs (OccupancySnapshot): at the first cycle at or after each of
  // these times. Empty: on a grid that starts at 15 minutes and doubles whenever more than
  // `max_occupancy_snapshots` are kept (every other is dropped), plus the last cycle.
  std::vector<std::chrono::seconds> occupancy_at;
  size_t max_occupancy_snapshots = 16;
  std::function<void(const Progress&)> progress;  // called after every cycle, when set
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
  int64_t shared_gpu_milli = 0;     // of that, held by fractional (GPU-sharing) pods
  int64_t pending_pods = 0;
  int64_t running_pods = 0;
  int64_t evictions = 0;               // so far
  int64_t lost_gpu_milli_seconds = 0;  // GPU time evictions destroyed, so far
  int64_t partly_used_gpus = 0;        // shared GPUs with room left
  int64_t stranded_gpus = 0;           // idle GPUs on nodes with < gang_gpus idle
  // Jain's fairness index of the leaf queues' allocation relative to their fair share, in
  // permille (1000: every queue holds the same fraction of its fair share); over the leaf
  // queues with a fair share, each fraction capped at 10. -1 when no queue has a fair share.
  int64_t jain_permille = -1;
};

// Who holds one GPU: the owner queue of each pod on it, with its portion.
struct GpuHolder {
  std::string queue;  // "" for pods of other schedulers
  int64_t milli = 0;
};

// One node's GPUs at an instant.
struct NodeOccupancy {
  std::string name;
  std::string pool;
  bool usable = true;
  std::vector<std::vector<GpuHolder>> gpus;  // per device; empty = idle
};

// Every GPU node at the instant of a cycle, as it left it; nodes by name.
struct OccupancySnapshot {
  std::chrono::seconds time{0};
  std::vector<NodeOccupancy> nodes;
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
  std::vector<QueueSample> queues;           // by time, then queue name
  std::vector<PodOutcome> pods;              // by key
  std::vector<OccupancySnapshot> occupancy;  // by time
  int64_t cycles = 0;
  std::chrono::seconds end{0};
  std::vector<core::Diagnostic> diagnostics;  // from reading the objects
};

// Jain's index in permille of `fractions` (permille each): (sum x)^2 / (n * sum x^2); -1 for
// none, 1000 when all are zero.
int64_t JainPermille(const std::vector<int64_t>& fractions);

// Fails (naming the object and field) on workload times that cannot be read.
Result<SimulationResult> Simulate(core::ClusterObjects objects, const SimulationOptions& options);

}  // namespace quotient::simulate
