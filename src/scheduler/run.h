// Run: several scheduling cycles over a set of objects, with the world advancing in between,
// and a report of where everything ended up — the engine behind `quotient schedule`.
//
// Pure: objects in, report out; no I/O, no clock (the caller passes `now`).
#pragma once

#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/resources.h"
#include "framework/config.h"
#include "framework/decision.h"

namespace quotient::scheduler {

using framework::Decision;
using framework::DecisionKind;
using framework::SchedulerConfig;

struct RunOptions {
  SchedulerConfig config;
  std::string scheduler_name = "quotient";
  core::Time now{};
  int cycles = 1;
  bool delete_evicted = false;
};

struct CycleReport {
  int index = 0;
  std::vector<Decision> decisions;
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
  int32_t min_member = 1;  // pods the gang needs: the sum of its leaf subgroups' minimums
  std::string status;      // Running, Pipelined, Pending, Succeeded, Failed
  std::vector<std::string> reasons;
};

struct QueueReport {
  std::string name;
  std::string parent;
  int32_t priority = 100;
  core::PerResource<core::Bound> deserved;
  core::PerResource<core::Bound> limit;
  core::ShareVector fair_share;  // when the last cycle opened
  core::ShareVector allocated;   // at the end of the last cycle
  core::ShareVector requested;
};

struct RunReport {
  std::vector<CycleReport> cycles;
  std::vector<PodReport> pods;  // pods of this scheduler, by key
  std::vector<PodGroupReport> pod_groups;
  std::vector<QueueReport> queues;
  std::vector<core::Diagnostic> diagnostics;  // from reading the objects (first cycle)
};

RunReport Run(core::ClusterObjects objects, const RunOptions& options);

}  // namespace quotient::scheduler
