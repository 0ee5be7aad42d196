#include "scheduler/run.h"

#include <map>
#include <set>

#include "actions/registry.h"
#include "core/shard.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"
#include "scheduler/pending_reason.h"
#include "scheduler/world.h"

namespace quotient::scheduler {
namespace {

std::string OutputStatus(core::PodStatus s, bool has_node) {
  switch (s) {
    case core::PodStatus::kRunning:
    case core::PodStatus::kBound:
    case core::PodStatus::kBinding:
    case core::PodStatus::kAllocated:
      return "Running";
    case core::PodStatus::kPipelined:
      return "Pipelined";
    case core::PodStatus::kReleasing:
      return "Releasing";
    case core::PodStatus::kGated:
      return "Gated";
    case core::PodStatus::kSucceeded:
      return "Succeeded";
    case core::PodStatus::kFailed:
      return "Failed";
    case core::PodStatus::kUnknown:
      return has_node ? "Running" : "Pending";
    case core::PodStatus::kPending:
      return "Pending";
  }
  return "Pending";
}

struct LastCycle {
  std::map<std::string, const Decision*> by_pod;  // the pod's last decision in the cycle
};

PodReport ReportPod(const framework::Session& session, const core::Pod& pod, const LastCycle& last,
                    const std::set<std::string>& bound_by_run) {
  const core::Snapshot& s = session.snapshot();
  const core::Job& job = s.jobs[static_cast<size_t>(pod.job)];
  PodReport r;
  r.pod = pod.key;
  r.pod_group = job.key;
  r.queue = job.queue_name;
  r.node = pod.node_name;
  r.gpu_groups = pod.gpu_groups;
  r.status = OutputStatus(pod.status, !pod.node_name.empty());
  if (r.status == "Running" && bound_by_run.count(pod.key)) r.status = "Bound";
  if (auto it = last.by_pod.find(pod.key); it != last.by_pod.end()) {
    const Decision& d = *it->second;
    r.node = d.node;
    if (d.kind == DecisionKind::kEvict) {
      r.status = "Releasing";
    } else {
      r.status = d.kind == DecisionKind::kBind ? "Bound" : "Pipelined";
      r.gpu_groups = d.gpu_groups;
    }
  }
  if (r.status == "Pending") r.reason = PendingReason(session, job, pod.job, pod);
  return r;
}

PodGroupReport ReportGroup(const framework::Session& session, const core::Job& job,
                           core::Index index, const std::vector<std::string>& pod_status) {
  PodGroupReport r;
  r.pod_group = job.key;
  r.queue = job.queue_name;
  r.node_pool = job.node_pool;
  r.implicit = job.implicit;
  r.min_member = 0;
  for (core::Index i : job.pods) {
    const framework::PodState& state = session.state().pod(i);
    if (state.status == core::PodStatus::kSucceeded || state.status == core::PodStatus::kFailed) {
      continue;
    }
    if (core::IsAllocatedStatus(state.status)) {
      const core::ShareVector held = session.QuotaOf(i, state.node);
      r.allocated += held;
      if (!job.preemptible) r.allocated_non_preemptible += held;
      r.any_allocated = true;
    }
    r.requested += session.QuotaOf(i, state.node);
  }
  // KAI's readiness: every leaf subgroup has at least its minimum of live, ungated pods.
  int32_t waiting_for = 0;
  int32_t existing = 0;
  int32_t gated = 0;
  bool ready = true;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    waiting_for += sg.min_member;
    int32_t alive = 0;
    for (core::Index i : sg.pods) {
      const core::PodStatus st = session.state().pod(i).status;
      if (st == core::PodStatus::kSucceeded || st == core::PodStatus::kFailed ||
          st == core::PodStatus::kReleasing) {
        continue;
      }
      ++existing;
      if (st == core::PodStatus::kGated) {
        ++gated;
      } else {
        ++alive;
      }
    }
    ready = ready && alive >= sg.min_member;
  }
  if (!ready && !job.pods.empty()) {
    r.not_ready = "Job is not ready for scheduling. Waiting for " + std::to_string(waiting_for) +
                  " pods, currently " + std::to_string(existing) + " exist, " +
                  std::to_string(gated) + " are gated";
  }
  bool all_active = true;
  bool all_placed = true;
  bool any_pod = false;
  bool any_alive = false;
  bool any_failed = false;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    r.min_member += sg.min_member;
    int32_t active = 0;
    int32_t placed = 0;
    for (core::Index i : sg.pods) {
      const std::string& st = pod_status[static_cast<size_t>(i)];
      active += st == "Running" || st == "Bound";
      placed += st == "Running" || st == "Bound" || st == "Pipelined";
    }
    all_active = all_active && active >= sg.min_member;
    all_placed = all_placed && placed >= sg.min_member;
  }
  for (core::Index i : job.pods) {
    const std::string& st = pod_status[static_cast<size_t>(i)];
    any_pod = true;
    any_alive = any_alive || (st != "Succeeded" && st != "Failed");
    any_failed = any_failed || st == "Failed";
  }
  if (any_pod && !any_alive) {
    r.status = any_failed ? "Failed" : "Succeeded";
  } else if (any_pod && all_active) {
    r.status = "Running";
  } else if (any_pod && all_placed) {
    r.status = "Pipelined";
  } else {
    r.status = "Pending";
  }
  if (r.status == "Pending") {
    std::set<std::string> seen;
    for (core::Index i : job.pods) {
      const core::Pod& pod = session.snapshot().pods[static_cast<size_t>(i)];
      if (pod_status[static_cast<size_t>(i)] != "Pending") continue;
      std::string reason = PendingReason(session, job, index, pod);
      if (seen.insert(reason).second) r.reasons.push_back(std::move(reason));
    }
    if (!any_pod) r.reasons.push_back("the pod group has no pods");
  }
  return r;
}

QueueReport ReportQueue(const core::Snapshot& s, const fairshare::QueueShare& share) {
  const core::Queue& q = s.queues[static_cast<size_t>(share.queue)];
  QueueReport r;
  r.name = q.name;
  r.parent = q.parent == core::kNone ? "" : s.queues[static_cast<size_t>(q.parent)].name;
  r.priority = q.priority;
  for (core::ShareResource res : core::kShareResources) {
    r.deserved[res] = q.resources[res].quota;
    r.limit[res] = q.resources[res].limit;
  }
  r.fair_share = share.FairShare();
  r.allocated = share.Allocated();
  r.allocated_non_preemptible = share.AllocatedNonPreemptible();
  r.requested = share.Requested();
  for (core::Index child : q.children)
    r.children.push_back(s.queues[static_cast<size_t>(child)].name);
  r.problems = q.problems;
  r.warnings = q.warnings;
  return r;
}

void ReportFinalState(const framework::Session& session, const std::vector<Decision>& decisions,
                      const std::set<std::string>& bound_by_run, bool pods_and_groups,
                      RunReport& report) {
  const core::Snapshot& s = session.snapshot();
  for (const fairshare::QueueShare& share : session.shares().all()) {
    report.queues.push_back(ReportQueue(s, share));
  }
  if (!pods_and_groups) return;
  LastCycle last;
  for (const Decision& d : decisions) last.by_pod[d.pod] = &d;
  std::vector<std::string> pod_status(s.pods.size());  // by pod: its status in the report
  for (size_t i = 0; i < s.pods.size(); ++i) {
    const core::Pod& pod = s.pods[i];
    if (pod.job == core::kNone) continue;
    report.pods.push_back(ReportPod(session, pod, last, bound_by_run));
    pod_status[i] = report.pods.back().status;
  }
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    report.pod_groups.push_back(
        ReportGroup(session, s.jobs[i], static_cast<core::Index>(i), pod_status));
  }
}

// Times the phases of one cycle with the caller's clock, if any.
class Laps {
 public:
  Laps(const RunOptions& options, CycleReport& cycle)
      : clock_(options.monotonic_clock), cycle_(cycle), mark_(clock_ ? clock_() : Nanos(0)) {}
  void Lap(std::string phase) {
    if (!clock_) return;
    const Nanos now = clock_();
    cycle_.timings.push_back({std::move(phase), now - mark_});
    mark_ = now;
  }

 private:
  using Nanos = std::chrono::nanoseconds;
  const std::function<Nanos()>& clock_;
  CycleReport& cycle_;
  Nanos mark_;
};

// The configured actions on `session`, their decisions and annotation changes into `cycle`.
void ExecuteActions(framework::Session& session, const RunOptions& options, CycleReport& cycle,
                    Laps& laps) {
  for (const std::string& name : options.config.actions) {
    if (std::unique_ptr<framework::Action> action = actions::MakeAction(name)) {
      action->Execute(session);
      laps.Lap(name);
    }
  }
  cycle.decisions = session.decisions();
  for (const framework::Session::AnnotationUpdate& a : session.annotations()) {
    cycle.annotations.push_back({a.pod_group, a.key, a.value});
  }
}

}  // namespace

RunReport Run(core::ClusterObjects objects, const RunOptions& options) {
  if (options.node_pool) {
    objects = core::ObjectsOfShard(std::move(objects),
                                   core::PodShard{options.node_pool_label_key, *options.node_pool});
  }
  RunReport report;
  core::SnapshotOptions snapshot_options;
  snapshot_options.scheduler_name = options.scheduler_name;
  snapshot_options.node_pool_label_key = options.node_pool_label_key;
  snapshot_options.queue_label_key = options.queue_label_key;
  snapshot_options.now = options.now;
  std::set<std::string> bound_by_run;
  const int cycles = options.cycles < 1 ? 1 : options.cycles;
  for (int c = 0; c < cycles; ++c) {
    CycleReport cycle{c, {}, {}, {}};
    Laps laps(options, cycle);
    core::SnapshotBuild build = core::BuildSnapshot(objects, snapshot_options);
    if (c == 0) report.diagnostics = std::move(build.diagnostics);
    laps.Lap("build_snapshot");
    framework::Session session(build.snapshot, options.config);
    if (c == 0 && options.on_decision) session.SetDecisionListener(options.on_decision);
    laps.Lap("open_session");
    ExecuteActions(session, options, cycle, laps);
    for (const Decision& d : session.decisions()) {
      if (d.kind == DecisionKind::kBind) bound_by_run.insert(d.pod);
      if (d.kind == DecisionKind::kEvict) bound_by_run.erase(d.pod);
    }
    if (c + 1 == cycles) {
      ReportFinalState(session, session.decisions(), bound_by_run, true, report);
      laps.Lap("close_session");
    } else {
      AdvanceWorld(objects, session.decisions(), options.delete_evicted);
      ApplyAnnotations(objects, session.annotations());
      laps.Lap("close_session");
    }
    report.cycles.push_back(std::move(cycle));
  }
  return report;
}

RunReport RunCycle(const core::SnapshotBuild& build, const RunOptions& options) {
  RunReport report;
  report.diagnostics = build.diagnostics;
  CycleReport cycle{0, {}, {}, {}};
  Laps laps(options, cycle);
  framework::Session session(build.snapshot, options.config);
  if (options.on_decision) session.SetDecisionListener(options.on_decision);
  laps.Lap("open_session");
  ExecuteActions(session, options, cycle, laps);
  std::set<std::string> bound;
  for (const Decision& d : session.decisions()) {
    if (d.kind == DecisionKind::kBind) bound.insert(d.pod);
  }
  ReportFinalState(session, session.decisions(), bound, options.report_pods_and_groups, report);
  laps.Lap("close_session");
  report.cycles.push_back(std::move(cycle));
  return report;
}

}  // namespace quotient::scheduler
