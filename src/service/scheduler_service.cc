#include "service/scheduler_service.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "core/node_health.h"
#include "core/time_text.h"
#include "kube/scheduler_config_codec.h"
#include "scheduler/run.h"
#include "service/object_key.h"

namespace quotient::service {
namespace {

std::chrono::nanoseconds Monotonic() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch());
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

telemetry::QueueMetrics QueueMetricsOf(const scheduler::QueueReport& q) {
  telemetry::QueueMetrics m;
  m.name = q.name;
  m.fair_share_gpu_milli = q.fair_share[core::ShareResource::kGpu].value();
  m.fair_share_cpu_millicores = q.fair_share[core::ShareResource::kCpu].value();
  m.fair_share_memory_bytes = q.fair_share[core::ShareResource::kMemory].value();
  // KAI's queue_*_usage is historical usage from its usage database (time-based fair share),
  // which Quotient does not keep yet: left at 0 rather than filled with something else.
  const auto quota = [&q](core::ShareResource r) -> std::optional<int64_t> {
    if (q.deserved[r].is_unlimited()) return std::nullopt;
    return q.deserved[r].amount().value();
  };
  m.deserved_gpu_milli = quota(core::ShareResource::kGpu);
  m.deserved_cpu_millicores = quota(core::ShareResource::kCpu);
  m.deserved_memory_bytes = quota(core::ShareResource::kMemory);
  m.allocated_gpu_milli = q.allocated[core::ShareResource::kGpu].value();
  m.allocated_cpu_millicores = q.allocated[core::ShareResource::kCpu].value();
  m.allocated_memory_bytes = q.allocated[core::ShareResource::kMemory].value();
  return m;
}

// How the cache's model reads objects: as the cycle's Run would (scheduler name, label keys).
core::SnapshotOptions ModelOptions(const ServiceOptions& options) {
  core::SnapshotOptions o;
  o.scheduler_name = options.scheduler_name;
  o.node_pool_label_key = options.shard.label_key;
  o.queue_label_key = options.queue_label_key;
  o.group_owned_pods_implicitly = !options.wait_for_pod_grouper;
  return o;
}

}  // namespace

SchedulerService::SchedulerService(kubeclient::Client& client, ServiceOptions options)
    : client_(client),
      options_(std::move(options)),
      cache_(client, options_.shard, ModelOptions(options_)),
      status_(client, options_.scheduler_name) {
  if (!options_.config_path.empty()) config_text_ = ReadFile(options_.config_path).value_or("");
  if (options_.gpu_sharing) {
    GpuSharingOptions sharing = *options_.gpu_sharing;
    sharing.scheduler_name = options_.scheduler_name;
    gpu_binder_ = std::make_unique<GpuSharingBinder>(client, std::move(sharing));
  }
  cache_.OnChange([this] {
    {
      std::lock_guard lock(mu_);
      dirty_ = true;
    }
    wake_.notify_all();
  });
}

SchedulerService::~SchedulerService() { StopAll(); }

// Stops the bind workers (after the binds already handed to them), the status writer and the
// cache; safe to call twice.
void SchedulerService::StopAll() {
  ready_ = false;
  for (auto& w : workers_) w.request_stop();
  bind_ready_.notify_all();
  workers_.clear();  // joins
  status_.Stop();
  cache_.Stop();
}

ServiceStats SchedulerService::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void SchedulerService::Run(std::stop_token stop) {
  cache_.Start();
  while (!stop.stop_requested() && !cache_.WaitForSync(std::chrono::seconds(1))) {
  }
  if (stop.stop_requested()) {
    StopAll();
    return;
  }
  spdlog::info("scheduler {}: cache synced, scheduling every {} ms", options_.scheduler_name,
               options_.schedule_period.count());
  status_.Start();
  for (int i = 0; i < options_.bind_workers; ++i) {
    workers_.emplace_back([this](std::stop_token s) { BindWorker(s); });
  }
  ready_ = true;
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mu_);
      // Wait for a change or the period; then let a burst of events settle.
      wake_.wait_for(lock, stop, options_.schedule_period, [this] { return dirty_; });
      if (stop.stop_requested()) break;
    }
    std::this_thread::sleep_for(options_.debounce);
    {
      std::lock_guard lock(mu_);
      dirty_ = false;
    }
    RunCycle();
  }
  StopAll();
}

bool SchedulerService::InBackoff(const std::string& pod,
                                 std::chrono::steady_clock::time_point now) const {
  auto it = backoff_.find(pod);
  return it != backoff_.end() && now < it->second.until;
}

void SchedulerService::MaybeReloadConfig() {
  if (options_.config_path.empty()) return;
  auto now = std::chrono::steady_clock::now();
  if (now - config_checked_ < options_.config_check_interval) return;
  config_checked_ = now;
  std::optional<std::string> text = ReadFile(options_.config_path);
  if (!text || *text == config_text_) return;
  config_text_ = *text;
  Result<framework::SchedulerConfig> config =
      kube::ParseSchedulerConfig(*text, options_.config_path);
  if (!config.ok()) {
    spdlog::error("--scheduler-conf {} changed but cannot be used, keeping the previous one: {}",
                  options_.config_path, config.message());
    return;
  }
  options_.config = *config;
  std::lock_guard lock(mu_);
  ++stats_.config_reloads;
  spdlog::info("reloaded the scheduler configuration from {}", options_.config_path);
}

void SchedulerService::RunCycle() {
  MaybeReloadConfig();
  MaybeCollectGpuReservations();
  const auto started = std::chrono::steady_clock::now();
  const auto wall_started = std::chrono::system_clock::now();
  const core::Time now = std::chrono::floor<std::chrono::seconds>(wall_started);
  // Pods whose bind failed recently sit this cycle out: gated, as if not yet schedulable.
  std::set<std::string> held_back;
  {
    std::lock_guard lock(mu_);
    for (const auto& [pod, backoff] : backoff_) {
      if (InBackoff(pod, started)) held_back.insert(pod);
    }
  }
  const std::shared_ptr<const core::SnapshotBuild> build = cache_.Snapshot(now, held_back);
  const core::Snapshot& snapshot = build->snapshot;
  const std::chrono::nanoseconds snapshot_took = std::chrono::steady_clock::now() - started;
  scheduler::RunOptions run;
  run.config = options_.config;
  run.scheduler_name = options_.scheduler_name;
  run.node_pool_label_key = options_.shard.label_key;
  run.queue_label_key = options_.queue_label_key;
  run.now = now;
  run.cycles = 1;
  run.monotonic_clock = Monotonic;
  // Binds start as soon as allocate commits them, while the cycle goes on. The binds of one
  // PodGroup decided in this cycle share a GangBind.
  std::map<std::string, std::shared_ptr<GangBind>> gangs;
  run.on_decision = [&](const framework::Decision& d, const std::string& group) {
    if (d.kind != framework::DecisionKind::kBind) return;
    std::shared_ptr<GangBind>& gang = gangs[group];
    if (!gang) {
      gang = std::make_shared<GangBind>();
      gang->group = group;
    }
    cache_.AssumeBound(d.pod, d.node, d.gpu_groups);
    const core::Index pod = snapshot.FindPod(d.pod);
    std::chrono::system_clock::time_point created{};
    if (pod != core::kNone) created = snapshot.pods[static_cast<size_t>(pod)].meta.creation_time;
    std::optional<int64_t> gpu_memory;
    if (const core::Index node = snapshot.FindNode(d.node); node != core::kNone) {
      gpu_memory = snapshot.nodes[static_cast<size_t>(node)].gpu_memory_mib;
    }
    std::lock_guard lock(mu_);
    bind_queue_.push_back(
        {d.pod, cache_.PodUid(d.pod), d.node, gang, created, d.gpu_groups, gpu_memory});
    bind_ready_.notify_one();
  };
  scheduler::RunReport report = scheduler::RunCycle(*build, run);
  if (!report.cycles.empty()) {
    // The snapshot came from the model before the run: its time leads the phases.
    std::vector<scheduler::PhaseTiming>& timings = report.cycles.front().timings;
    timings.insert(timings.begin(), {"build_snapshot", snapshot_took});
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.cycles;
  }
  if (report.cycles.empty()) return;
  const scheduler::CycleReport& cycle = report.cycles.front();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  if (took > std::chrono::milliseconds(100)) {
    // A slow cycle is worth a line: what it cost and where (the phases).
    std::string phases;
    for (const scheduler::PhaseTiming& t : cycle.timings) {
      phases +=
          fmt::format(" {}={}ms", t.phase,
                      std::chrono::duration_cast<std::chrono::milliseconds>(t.duration).count());
    }
    spdlog::info("cycle took {} ms for {} pods, {} decisions:{}", took.count(), report.pods.size(),
                 cycle.decisions.size(), phases);
  }

  // What users read: pending reasons, PodGroup and Queue status, annotations.
  std::set<std::string> pending;
  for (const scheduler::PodReport& pod : report.pods) {
    if (pod.status != "Pending" || pod.reason.empty()) continue;
    pending.insert(pod.pod);
    // An implicit group has no PodGroup object to mark.
    const core::Index job = snapshot.FindJob(pod.pod_group);
    const bool has_group = job != core::kNone && !snapshot.jobs[static_cast<size_t>(job)].implicit;
    // A gang the remediator drained for a node fault says so: its pods are back in the queue
    // because of the hardware, not anything the user did.
    const std::string drained = has_group ? cache_.DrainedForFault(pod.pod_group) : "";
    const std::string reason =
        drained.empty() ? pod.reason : "requeued: pods " + drained + "; " + pod.reason;
    status_.PodPending(pod.pod, has_group ? pod.pod_group : "", reason,
                       !has_group || cache_.MarksUnschedulable(pod.pod_group));
  }
  status_.Retain(pending);
  ReportGroups(report);
  ReportQueues(report);
  std::vector<telemetry::QueueMetrics> queue_metrics;
  for (const scheduler::QueueReport& queue : report.queues) {
    queue_metrics.push_back(QueueMetricsOf(queue));
  }
  std::map<std::string, nlohmann::json> annotations;
  for (const scheduler::AnnotationChange& a : cycle.annotations) {
    nlohmann::json& patch = annotations[a.pod_group];
    patch[a.key] = a.value ? nlohmann::json(*a.value) : nlohmann::json(nullptr);
  }
  for (const auto& [group, patch] : annotations) status_.PodGroupAnnotations(group, patch.dump());

  // The rest of the decisions (binds are on their way already).
  std::map<std::string, std::set<std::string>> scheduled_by_action;
  std::map<std::string, std::set<std::string>> acted_on_by_action;
  for (const framework::Decision& d : cycle.decisions) {
    // The decided pod's group, from the snapshot (a lookup per decision, not a map of every pod).
    const core::Index decided = snapshot.FindPod(d.pod);
    const core::Index job =
        decided == core::kNone ? core::kNone : snapshot.pods[static_cast<size_t>(decided)].job;
    const std::string group =
        job == core::kNone ? std::string() : snapshot.jobs[static_cast<size_t>(job)].key;
    acted_on_by_action[d.action].insert(group);
    if (d.kind == framework::DecisionKind::kBind) {
      scheduled_by_action[d.action].insert(group);
    } else if (d.kind == framework::DecisionKind::kPipeline) {
      scheduled_by_action[d.action].insert(group);
      status_.PodPipelined(d.pod, cache_.PodUid(d.pod), d.node, "");
    } else if (d.kind == framework::DecisionKind::kEvict) {
      if (Evict(d, group) && options_.dashboard) {
        const std::string queue =
            job == core::kNone ? std::string() : snapshot.jobs[static_cast<size_t>(job)].queue_name;
        options_.dashboard->RecordEviction(
            {std::chrono::system_clock::now(), d.action, d.pod, group, queue, d.node, d.reason});
      }
    }
  }
  if (options_.dashboard) {
    options_.dashboard->NoteCycle(Stats().cycles, wall_started, options_.schedule_period);
    if (options_.dashboard->WantsState(wall_started)) {
      PublishDashboard(snapshot, report, wall_started, took);
    }
  }

  if (telemetry::SchedulerMetrics* m = options_.metrics) {
    std::chrono::nanoseconds open{0};
    std::chrono::nanoseconds close{0};
    for (const scheduler::PhaseTiming& t : cycle.timings) {
      if (t.phase == "build_snapshot" || t.phase == "open_session") {
        open += t.duration;  // KAI's open_session includes taking the snapshot
      } else if (t.phase == "close_session") {
        close = t.duration;
      } else {
        m->RecordAction(t.phase, t.duration);
      }
    }
    m->RecordCycle(std::chrono::steady_clock::now() - started, open, close);
    for (const auto& [action, groups] : scheduled_by_action) {
      for (size_t i = 0; i < groups.size(); ++i) m->PodGroupScheduled(action);
      if (action != "allocate") {
        for (size_t i = 0; i < groups.size(); ++i) m->PreemptionAttempt();
      }
    }
    for (const auto& [action, groups] : acted_on_by_action) {
      for (size_t i = 0; i < groups.size(); ++i) m->PodGroupActedOn(action);
    }
    m->SetPendingPods(static_cast<int64_t>(pending.size()));
    m->SetQueues(queue_metrics);
  }
}

void SchedulerService::PublishDashboard(const core::Snapshot& snapshot,
                                        const scheduler::RunReport& report,
                                        std::chrono::system_clock::time_point started,
                                        std::chrono::milliseconds took) {
  DashboardInput input;
  input.snapshot = &snapshot;
  input.report = &report;
  for (const core::Node& node : snapshot.nodes) {
    if (node.unhealthy_gpus > 0) input.unhealthy_gpus[node.name] = cache_.UnhealthyGpus(node.name);
  }
  input.computed_at = started;
  input.cycle_duration = took;
  input.cycle = Stats().cycles;
  input.scheduler_name = options_.scheduler_name;
  input.node_pool = options_.shard.value;
  input.schedule_period = options_.schedule_period;
  options_.dashboard->Publish(BuildDashboardState(input), started);
}

void SchedulerService::ReportGroups(const scheduler::RunReport& report) {
  const core::Time now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  std::set<std::string> seen;
  for (const scheduler::PodGroupReport& group : report.pod_groups) {
    if (group.implicit) continue;  // no PodGroup object to write to
    seen.insert(group.pod_group);
    if (!group.not_ready.empty()) {
      status_.PodGroupEvent(group.pod_group, "Normal", "NotReady", group.not_ready);
    }
    std::optional<SchedulingCondition> condition;
    bool clear = false;
    if (group.status == "Pending" && !group.any_allocated && !group.reasons.empty()) {
      SchedulingCondition& c = conditions_[group.pod_group];
      if (c.reasons != group.reasons || c.node_pool != group.node_pool) {
        c.reasons = group.reasons;
        c.node_pool = group.node_pool;
        c.since = now;
        ++c.transition_id;
      }
      condition = c;
    } else if (group.status == "Running" || group.status == "Succeeded") {
      conditions_.erase(group.pod_group);
      clear = true;
      // Running again after a drain: the note has served its purpose.
      if (!cache_.DrainedForFault(group.pod_group).empty()) {
        status_.PodGroupAnnotations(
            group.pod_group,
            nlohmann::json{{std::string(core::kDrainedForFaultAnnotation), nullptr}}.dump());
      }
    }
    status_.PodGroupStatus(group.pod_group, PodGroupStatusJson(group, condition, clear));
  }
  std::erase_if(conditions_, [&](const auto& entry) { return !seen.contains(entry.first); });
}

void SchedulerService::ReportQueues(const scheduler::RunReport& report) {
  const core::Time now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  std::set<std::string> seen;
  for (const scheduler::QueueReport& queue : report.queues) {
    seen.insert(queue.name);
    QueueCondition wanted = QueueCondition::Of(queue);
    auto it = queue_conditions_.find(queue.name);
    if (it == queue_conditions_.end() || !it->second.SameAs(wanted)) {
      wanted.since = now;
      // Said once when it changes, not every cycle: the condition keeps saying it.
      if (wanted.reason != "Valid") {
        status_.QueueEvent(queue.name, "Warning",
                           wanted.valid ? "QueueSpecWarning" : "QueueUnusable", wanted.message);
      }
      it = queue_conditions_.insert_or_assign(queue.name, std::move(wanted)).first;
    }
    status_.QueueStatus(queue.name, QueueStatusJson(queue, it->second));
  }
  std::erase_if(queue_conditions_, [&](const auto& entry) { return !seen.contains(entry.first); });
}

bool SchedulerService::Evict(const framework::Decision& d, const std::string& group) {
  auto [ns, name] = SplitKey(d.pod);
  // KAI marks the pod before it goes: DisruptionTarget=True, PreemptionByScheduler, with the
  // reason, so whoever watches the pod (a Job controller, a user) sees why it ends.
  nlohmann::json condition = {
      {"status",
       {{"conditions",
         {{{"type", "DisruptionTarget"},
           {"status", "True"},
           {"reason", "PreemptionByScheduler"},
           {"message", d.reason},
           {"lastTransitionTime", core::FormatRfc3339(std::chrono::floor<std::chrono::seconds>(
                                      std::chrono::system_clock::now()))}}}}}}};
  (void)client_.Patch(kubeclient::resources::Pods(), ns, name,
                      kubeclient::PatchType::kStrategicMerge, condition.dump(), "status");
  const std::string uid = cache_.PodUid(d.pod);
  auto outcome = client_.Evict(ns, name, uid);
  const bool blocked =
      outcome.ok() && *outcome == kubeclient::EvictionOutcome::kBlockedByDisruptionBudget;
  {
    std::lock_guard lock(mu_);
    if (!outcome.ok()) {
      stats_.last_error = "evict " + d.pod + ": " + outcome.error().Describe();
      spdlog::warn("{}", stats_.last_error);
      return false;
    }
    if (blocked) {
      // Rare: the solver keeps within the budgets it knows, so only a budget that changed
      // since the cache saw it lands here. The next cycle decides again.
      ++stats_.evictions_blocked;
      spdlog::info("eviction of {} blocked by a PodDisruptionBudget; deciding again next cycle",
                   d.pod);
    } else {
      ++stats_.evictions;
    }
  }
  if (options_.metrics) options_.metrics->Eviction(blocked);
  if (blocked) return false;
  spdlog::info("evicted {} from {} ({}): {}", d.pod, d.node, d.action, d.reason);
  status_.PodEvicted(d.pod, uid, d.action, d.reason);
  if (d.action == "stalegangeviction") {
    status_.PodGroupEvent(group, "Normal", "StaleJob", d.reason);
  }
  if (options_.metrics) {
    options_.metrics->PodEvicted(group, "", options_.shard.value, d.action);
  }
  return true;
}

void SchedulerService::BindWorker(std::stop_token stop) {
  for (;;) {
    BindTask task;
    {
      std::unique_lock lock(mu_);
      bind_ready_.wait(lock, stop, [this] { return !bind_queue_.empty(); });
      if (bind_queue_.empty()) return;  // stopped with nothing left to do
      task = std::move(bind_queue_.front());
      bind_queue_.pop_front();
    }
    Bind(task);
  }
}

void SchedulerService::Release(const std::string& pod) {
  cache_.ForgetAssumed(pod);
  Backoff& b = backoff_[pod];
  b.delay = b.delay.count() == 0 ? options_.bind_backoff_initial
                                 : std::min(b.delay * 2, options_.bind_backoff_max);
  b.until = std::chrono::steady_clock::now() + b.delay;
  dirty_ = true;
  wake_.notify_all();
}

void SchedulerService::Bind(const BindTask& task) {
  if (task.gang && task.gang->failed) {
    // Another bind of this gang failed: this one is released rather than sent, so the gang is
    // not bound in part.
    std::lock_guard lock(mu_);
    ++stats_.binds_released;
    Release(task.pod);
    return;
  }
  if (options_.metrics && task.created.time_since_epoch().count() > 0) {
    options_.metrics->RecordTaskSchedulingLatency(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now() -
                                                              task.created));
  }
  auto [ns, name] = SplitKey(task.pod);
  const auto started = std::chrono::steady_clock::now();
  // A fractional pod's GPU comes first: its reservation pods, group label and ConfigMap.
  std::optional<PreparedSharing> sharing;
  if (gpu_binder_ && !task.gpu_groups.empty()) {
    std::optional<core::PodObject> pod = cache_.PodObject(task.pod);
    Result<PreparedSharing> prepared =
        pod ? gpu_binder_->Prepare({*pod, task.node, task.gpu_groups, task.node_gpu_memory_mib})
            : Result<PreparedSharing>::Error("pod " + task.pod + " is no longer cached");
    if (!prepared.ok()) {
      if (options_.metrics) options_.metrics->Bind(false);
      std::lock_guard lock(mu_);
      BindFailed(task, prepared.message());
      return;
    }
    sharing = std::move(prepared).value();
  }
  kubeclient::ApiStatus bound = client_.Bind(ns, name, task.uid, task.node);
  if (sharing) {
    if (bound.ok()) {
      gpu_binder_->Done(*sharing);
    } else {
      gpu_binder_->Undo(*sharing);
    }
  }
  if (options_.metrics) {
    options_.metrics->RecordBindLatency(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started));
    options_.metrics->Bind(bound.ok());
  }
  std::lock_guard lock(mu_);
  if (bound.ok()) {
    ++stats_.binds;
    backoff_.erase(task.pod);
    status_.PodBound(task.pod, task.uid, task.node);
    return;
  }
  BindFailed(task, "bind " + task.pod + " to " + task.node + ": " + bound.error().Describe());
}

void SchedulerService::BindFailed(const BindTask& task, const std::string& why) {
  if (task.gang) task.gang->failed = true;
  ++stats_.bind_failures;
  stats_.last_error = why;
  spdlog::warn("{}{}", why, task.gang ? "; releasing the rest of gang " + task.gang->group : "");
  status_.PodBindFailed(task.pod, task.uid, why);
  Release(task.pod);
}

void SchedulerService::MaybeCollectGpuReservations() {
  if (!gpu_binder_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - gpu_collected_ < options_.gpu_collect_period) return;
  gpu_collected_ = now;
  const CollectStats collected = gpu_binder_->Collect(cache_.AllPods(), now);
  std::lock_guard lock(mu_);
  stats_.gpu_reservations_deleted += collected.reservations_deleted;
  stats_.gpu_orphans_deleted += collected.orphans_deleted;
}

}  // namespace quotient::service
