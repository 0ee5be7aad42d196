#include "service/scheduler_service.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <set>

#include "core/time_text.h"
#include "scheduler/run.h"

namespace quotient::service {
namespace {

// Kubernetes quantity text for one share resource: GPUs and CPU in milli-units ("2", "500m"),
// memory in bytes.
std::string QuantityText(core::ShareResource r, core::Quantity q) {
  if (r == core::ShareResource::kMemory) return std::to_string(q.value());
  if (q.value() % 1000 == 0) return std::to_string(q.value() / 1000);
  return std::to_string(q.value()) + "m";
}

std::string ResourceName(core::ShareResource r) {
  switch (r) {
    case core::ShareResource::kGpu:
      return "nvidia.com/gpu";
    case core::ShareResource::kCpu:
      return "cpu";
    case core::ShareResource::kMemory:
      return "memory";
  }
  return "unknown";
}

nlohmann::json ResourceList(const core::ShareVector& v) {
  nlohmann::json list = nlohmann::json::object();
  for (core::ShareResource r : core::kShareResources) list[ResourceName(r)] = QuantityText(r, v[r]);
  return list;
}

}  // namespace

// The Queue status we write: KAI's allocated and requested, and the fair share the cycle
// computed (ours; KAI keeps it in Prometheus only).
std::string QueueStatusJson(const scheduler::QueueReport& queue) {
  nlohmann::json status = {{"allocated", ResourceList(queue.allocated)},
                           {"requested", ResourceList(queue.requested)},
                           {"fairShare", ResourceList(queue.fair_share)}};
  return status.dump();
}

SchedulerService::SchedulerService(kubeclient::Client& client, ServiceOptions options)
    : client_(client),
      options_(std::move(options)),
      cache_(client),
      status_(client, options_.scheduler_name) {
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
  spdlog::info("scheduler {}: cache synced, scheduling every {} ms", options_.scheduler_name,
               options_.schedule_period.count());
  status_.Start();
  for (int i = 0; i < options_.bind_workers; ++i) {
    workers_.emplace_back([this](std::stop_token s) { BindWorker(s); });
  }
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

void SchedulerService::RunCycle() {
  core::ClusterObjects objects = cache_.Objects();
  auto now = std::chrono::steady_clock::now();
  {
    // Pods whose bind failed recently sit this cycle out: gated, as if not yet schedulable.
    std::lock_guard lock(mu_);
    if (!backoff_.empty()) {
      for (core::PodObject& pod : objects.pods) {
        if (pod.node_name.empty() && InBackoff(pod.meta.Key(), now)) pod.scheduling_gated = true;
      }
    }
  }
  // Which PodGroups asked not to be marked unschedulable (KAI's markUnschedulable: false).
  std::map<std::string, bool> mark_unschedulable;
  for (const core::PodGroupObject& group : objects.pod_groups) {
    mark_unschedulable[group.meta.Key()] = group.mark_unschedulable;
  }
  scheduler::RunOptions run;
  run.config = options_.config;
  run.scheduler_name = options_.scheduler_name;
  run.now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  run.cycles = 1;
  scheduler::RunReport report = scheduler::Run(std::move(objects), run);
  {
    std::lock_guard lock(mu_);
    ++stats_.cycles;
  }
  if (report.cycles.empty()) return;
  std::set<std::string> pending;
  for (const scheduler::PodReport& pod : report.pods) {
    if (pod.status != "Pending" || pod.reason.empty()) continue;
    pending.insert(pod.pod);
    auto group = mark_unschedulable.find(pod.pod_group);
    bool has_group = group != mark_unschedulable.end();
    status_.PodPending(pod.pod, has_group ? pod.pod_group : "", pod.reason,
                       !has_group || group->second);
  }
  status_.Retain(pending);
  for (const scheduler::QueueReport& queue : report.queues) {
    status_.QueueStatus(queue.name, QueueStatusJson(queue));
  }
  for (const framework::Decision& d : report.cycles.front().decisions) {
    if (d.kind == framework::DecisionKind::kBind) {
      cache_.AssumeBound(d.pod, d.node);
      std::lock_guard lock(mu_);
      bind_queue_.push_back({d.pod, cache_.PodUid(d.pod), d.node});
      bind_ready_.notify_one();
    } else if (d.kind == framework::DecisionKind::kEvict) {
      auto slash = d.pod.find('/');
      std::string ns = d.pod.substr(0, slash);
      std::string name = d.pod.substr(slash + 1);
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
      auto outcome = client_.Evict(ns, name, cache_.PodUid(d.pod));
      std::lock_guard lock(mu_);
      if (!outcome.ok()) {
        stats_.last_error = "evict " + d.pod + ": " + outcome.error().Describe();
        spdlog::warn("{}", stats_.last_error);
      } else if (*outcome == kubeclient::EvictionOutcome::kBlockedByDisruptionBudget) {
        // Rare: the solver keeps within the budgets it knows, so only a budget that changed
        // since the cache saw it lands here. The next cycle decides again.
        ++stats_.evictions_blocked;
        spdlog::info("eviction of {} blocked by a PodDisruptionBudget; deciding again next cycle",
                     d.pod);
      } else {
        ++stats_.evictions;
        spdlog::info("evicted {} from {} ({}): {}", d.pod, d.node, d.action, d.reason);
        status_.PodEvicted(d.pod, cache_.PodUid(d.pod), d.action, d.reason);
      }
    }
  }
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

void SchedulerService::Bind(const BindTask& task) {
  auto slash = task.pod.find('/');
  kubeclient::ApiStatus bound =
      client_.Bind(task.pod.substr(0, slash), task.pod.substr(slash + 1), task.uid, task.node);
  std::lock_guard lock(mu_);
  if (bound.ok()) {
    ++stats_.binds;
    backoff_.erase(task.pod);
    status_.PodBound(task.pod, task.uid, task.node);
    return;
  }
  ++stats_.bind_failures;
  stats_.last_error = "bind " + task.pod + " to " + task.node + ": " + bound.error().Describe();
  spdlog::warn("{}", stats_.last_error);
  cache_.ForgetAssumed(task.pod);
  Backoff& b = backoff_[task.pod];
  b.delay = b.delay.count() == 0 ? options_.bind_backoff_initial
                                 : std::min(b.delay * 2, options_.bind_backoff_max);
  b.until = std::chrono::steady_clock::now() + b.delay;
  dirty_ = true;
  wake_.notify_all();
}

}  // namespace quotient::service
