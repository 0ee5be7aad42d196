// The live dashboard's data (issue 13; docs/dashboard.md): the JSON `quotient scheduler
// --dashboard` serves at /dashboard/state, built after each cycle from what the cycle read and
// decided. Pure: a snapshot, a report, the time and a few service facts in, JSON out; no I/O, no
// clock, no locks (Dashboard, dashboard.h, holds the result for the HTTP threads).
//
// What it shows:
//   - the queue tree: per queue its parent and children, and per resource (GPU in milli-GPUs, CPU
//     in millicores, memory in bytes) deserved and limit (null = unlimited), fair share,
//     allocated, allocated non-preemptible and requested, as the cycle's report has them;
//   - the GPU map: every node with its pool, whether it is usable and why not, and its GPUs, each
//     with the pods holding it (pod, queue, milli-GPUs) after the cycle: the devices the snapshot
//     had, with the cycle's binds placed as the next snapshot will place them (whole-GPU pods on
//     the lowest idle devices, fractional pods on their GPU group's device) and the pods it
//     evicts marked; then the GPUs the node agent reports unhealthy, which the snapshot leaves out;
//   - the pending PodGroups with their reasons;
//   - (at serve time, DashboardDocument) the last evictions, whether this replica leads, and when
//     its last cycle ran.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/objects.h"
#include "core/snapshot.h"
#include "scheduler/run.h"

namespace quotient::service {

// One eviction the scheduler carried out (the Eviction API accepted it).
struct EvictionRecord {
  std::chrono::system_clock::time_point time{};
  std::string action;  // reclaim, preempt, consolidation, stalegangeviction
  std::string pod;     // ns/name
  std::string pod_group;
  std::string queue;
  std::string node;
  std::string reason;
};

// The last `capacity` evictions, newest first; older ones fall off. Not thread-safe: Dashboard
// locks around it.
class EvictionLog {
 public:
  explicit EvictionLog(size_t capacity) : capacity_(capacity) {}
  void Add(EvictionRecord record);
  const std::deque<EvictionRecord>& Recent() const { return records_; }  // newest first
  size_t capacity() const { return capacity_; }
  int64_t total() const { return total_; }  // every eviction added, kept or not

 private:
  size_t capacity_;
  std::deque<EvictionRecord> records_;
  int64_t total_ = 0;
};

struct DashboardInput {
  const core::Snapshot* snapshot = nullptr;      // what the cycle started from
  const scheduler::RunReport* report = nullptr;  // what it decided (one cycle)
  // The unhealthy GPUs of the nodes that have some, by node name (the node agent's gpu-health
  // annotation as the cache decoded it).
  std::map<std::string, std::vector<core::UnhealthyGpu>> unhealthy_gpus;
  std::chrono::system_clock::time_point computed_at{};  // when the cycle started
  std::chrono::milliseconds cycle_duration{0};
  int64_t cycle = 0;  // the service's cycle count, this one included
  std::string scheduler_name;
  std::string node_pool;  // the shard served, "" = the default pool
  std::chrono::milliseconds schedule_period{1000};
  // Pending PodGroups listed at most (pending_total counts them all): a backlog of thousands
  // would make every refresh heavy and the list unreadable.
  size_t max_pending = 500;
};

// The state of one cycle (the "state" member of the served document).
nlohmann::json BuildDashboardState(const DashboardInput& input);

// What the served document says besides the state.
struct DocumentFacts {
  bool leading = false;
  std::chrono::system_clock::time_point served_at{};
  int64_t last_cycle = 0;                                 // 0: none yet
  std::chrono::system_clock::time_point last_cycle_at{};  // when it started
  std::chrono::milliseconds schedule_period{1000};
  // The state predates the current watch: the service was not building states while nobody
  // watched, and the next cycle brings a fresh one.
  bool state_pending = false;
};

// The document served at /dashboard/state, less its "state" (Dashboard adds the cycle's state,
// serialised once): {"version", "served_at_ms", "leading", "last_cycle", "last_cycle_at_ms"
// (null before the first cycle), "schedule_period_ms", "state_pending", "evictions" (newest
// first), "evictions_total", "eviction_capacity"}.
nlohmann::json DashboardDocument(const EvictionLog& evictions, const DocumentFacts& facts);

}  // namespace quotient::service
