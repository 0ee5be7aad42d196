// Run: several scheduling cycles over a set of objects, with the world advancing in between,
// and a report of where everything ended up — the engine behind `quotient schedule`.
//
// Pure: objects in, report out; no I/O, no clock (the caller passes `now`).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/resources.h"
#include "core/snapshot_builder.h"
#include "framework/config.h"
#include "framework/decision.h"
#include "framework/session.h"

namespace quotient::scheduler {

using framework::Decision;
using framework::DecisionKind;
using framework::SchedulerConfig;

struct RunOptions {
  SchedulerConfig config;
  std::string scheduler_name = "quotient";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::string queue_label_key = "kai.scheduler/queue";
  // The node pool to schedule, as one KAI scheduler instance serves one (core/shard.h): "" the
  // default pool; nullopt every object in one run (Quotient's offline view of all pools).
  std::optional<std::string> node_pool;
  core::Time now{};
  int cycles = 1;
  bool delete_evicted = false;
  // Hears each decision of the first cycle as it is committed (see Session::SetDecisionListener).
  framework::Session::DecisionListener on_decision;
  // RunCycle: report every pod and pod group (false: only queues, decisions and annotations,
  // for a caller that reads nothing else, such as the simulator, cycle after cycle).
  bool report_pods_and_groups = true;
  // A monotonic clock for the per-phase timings of each cycle (metrics); none = no timings.
  std::function<std::chrono::nanoseconds()> monotonic_clock;
};

// How long one phase of a cycle took, in this order: "build_snapshot" (the objects read into a
// Snapshot), "open_session" (the session and fair share), each action by its name,
// "close_session" (the report in the last cycle; in earlier ones, the world advanced for the
// next cycle).
struct PhaseTiming {
  std::string phase;
  std::chrono::nanoseconds duration{0};
};

// A PodGroup annotation the cycle changed (value empty = removed): last-start and stale-since
// timestamps, which later cycles read back from the object.
struct AnnotationChange {
  std::string pod_group;  // ns/name
  std::string key;
  std::optional<std::string> value;
};

struct CycleReport {
  int index = 0;
  std::vector<Decision> decisions;
  std::vector<AnnotationChange> annotations;
  std::vector<PhaseTiming> timings;  // empty without RunOptions::monotonic_clock
};

struct PodReport {
  std::string pod;        // ns/name
  std::string pod_group;  // ns/name
  std::string queue;
  std::string status;  // Running, Bound, Pipelined, Pending, Releasing, Gated, Succeeded, Failed
  std::string node;
  std::vector<std::string> gpu_groups;
  std::string reason;  // why it is not placed (Pending), empty otherwise
};

struct PodGroupReport {
  std::string pod_group;
  std::string queue;
  std::string node_pool;   // "" = the default pool
  bool implicit = false;   // a group of one made for a pod without a PodGroup
  int32_t min_member = 1;  // pods the gang needs: the sum of its leaf subgroups' minimums
  std::string status;      // Running, Pipelined, Pending, Succeeded, Failed
  std::vector<std::string> reasons;
  // KAI's resourcesStatus, at the end of the cycle: what the group's pods hold (allocated, and
  // the part that cannot be preempted) and what its pending pods ask for.
  core::ShareVector allocated;
  core::ShareVector allocated_non_preemptible;
  core::ShareVector requested;
  // Some pod of the group holds resources (KAI leaves schedulingConditions alone then).
  bool any_allocated = false;
  // Fewer pods exist (not gated) than the gang needs: KAI's NotReady, with its message.
  std::string not_ready;
};

struct QueueReport {
  std::string name;
  std::string parent;
  int32_t priority = 100;
  core::PerResource<core::Bound> deserved;
  core::PerResource<core::Bound> limit;
  core::ShareVector fair_share;  // when the last cycle opened
  core::ShareVector allocated;   // at the end of the last cycle
  core::ShareVector allocated_non_preemptible;
  core::ShareVector requested;
  std::vector<std::string> children;  // child queue names, sorted
  // Why the queue is unusable (empty when it is usable), and the values accepted as KAI accepts
  // them that its owner should hear about (core::Queue).
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
};

struct RunReport {
  std::vector<CycleReport> cycles;
  std::vector<PodReport> pods;  // pods of this scheduler, by key
  std::vector<PodGroupReport> pod_groups;
  std::vector<QueueReport> queues;
  std::vector<core::Diagnostic> diagnostics;  // from reading the objects (first cycle)
};

RunReport Run(core::ClusterObjects objects, const RunOptions& options);

// One cycle on a snapshot made elsewhere (the service takes it from its core::ClusterModel):
// the same session, actions and report as a one-cycle Run, without building the snapshot
// (timings start with "open_session"; the build's diagnostics become the report's).
RunReport RunCycle(const core::SnapshotBuild& build, const RunOptions& options);

}  // namespace quotient::scheduler
