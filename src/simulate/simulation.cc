#include "simulate/simulation.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "core/accounting.h"
#include "core/cluster_model.h"
#include "scheduler/run.h"
#include "scheduler/world.h"
#include "simulate/workload_times.h"

namespace quotient::simulate {
namespace {

using std::chrono::seconds;

// A queue holding ten times its fair share counts as ten in Jain's index: one runaway queue
// should lower the index, not overflow it.
constexpr int64_t kMaxFairShareFraction = 10'000;

// A pod of the workload, as the simulated cluster holds it.
struct LivePod {
  core::PodObject object;  // as last given to the model
  PodTimes times;
  seconds remaining{0};                  // work left, when the duration is known
  std::optional<seconds> running_since;  // the current run's start
  uint64_t run = 0;                      // which run a completion event belongs to
  std::string group;                     // ns/name of the PodGroup of the workload it names
};

// Completions come before arrivals at the same instant: what finishes frees room for what comes.
enum class EventKind { kCompletion = 0, kArrival = 1 };
using Event = std::tuple<int64_t, EventKind, std::string, uint64_t>;  // time, kind, pod, run

class Simulator {
 public:
  Simulator(core::ClusterObjects objects, std::map<std::string, PodTimes> times,
            const SimulationOptions& options);
  SimulationResult Run();

 private:
  void ApplyEventsUpTo(seconds t);
  void Arrive(LivePod& pod);
  void Completed(LivePod& pod);
  // One scheduling cycle at `t`; whether it decided anything.
  bool Cycle(seconds t);
  // The cycle's decisions and annotation changes, made real at `t`.
  void Apply(const scheduler::CycleReport& cycle, seconds t);
  void Bound(LivePod& pod, const framework::Decision& d, seconds t);
  void Evicted(LivePod& pod, seconds t);
  void Sample(seconds t, const core::Snapshot& s, const scheduler::RunReport& report);
  // Whether the cycle at `t` records an occupancy snapshot; advances the schedule if so.
  bool OccupancyDue(seconds t);
  void RecordOccupancy(seconds t, const core::Snapshot& s);

  const SimulationOptions& options_;
  core::ClusterModel model_;
  std::map<std::string, LivePod> pods_;
  std::map<std::string, core::PodGroupObject> groups_;  // added with their first pod
  std::map<std::string, int64_t> live_in_group_;  // PodGroup -> its pods arrived, not completed
  std::set<Event> events_;
  std::map<std::string, PodOutcome> outcomes_;
  int64_t waiting_ = 0;  // arrived pods not running: bound pods leave it, evicted ones return
  int64_t evictions_ = 0;
  int64_t arrived_ = 0;
  int64_t lost_gpu_milli_seconds_ = 0;
  size_t next_occupancy_ = 0;        // of options_.occupancy_at
  seconds occupancy_grid_{15 * 60};  // without occupancy_at: the interval between snapshots
  seconds next_occupancy_mark_{0};
  SimulationResult result_;
};

core::SnapshotOptions ModelOptions(const SimulationOptions& o) {
  core::SnapshotOptions s;
  s.scheduler_name = o.scheduler_name;
  s.queue_label_key = o.queue_label_key;
  s.node_pool_label_key = o.node_pool_label_key;
  return s;
}

// `t` rounded up to the cycle grid.
seconds OnGrid(seconds t, seconds period) {
  const int64_t p = std::max<int64_t>(1, period.count());
  return seconds((t.count() + p - 1) / p * p);
}

Simulator::Simulator(core::ClusterObjects objects, std::map<std::string, PodTimes> times,
                     const SimulationOptions& options)
    : options_(options), model_(ModelOptions(options)) {
  for (core::NodeObject& n : objects.nodes) model_.Upsert(std::move(n));
  for (core::QueueObject& q : objects.queues) model_.Upsert(std::move(q));
  for (core::PriorityClassObject& c : objects.priority_classes) model_.Upsert(std::move(c));
  for (core::PodDisruptionBudgetObject& b : objects.pod_disruption_budgets) {
    model_.Upsert(std::move(b));
  }
  for (core::PodGroupObject& g : objects.pod_groups) {
    std::string key = g.meta.Key();
    groups_.emplace(std::move(key), std::move(g));
  }
  for (core::PodObject& object : objects.pods) {
    const std::string key = object.meta.Key();
    const auto own = times.find(key);
    if (own == times.end()) {  // another scheduler's: there throughout
      model_.Upsert(std::move(object));
      continue;
    }
    LivePod& pod = pods_[key];
    pod.times = own->second;
    pod.remaining = pod.times.duration.value_or(seconds(0));
    pod.object = std::move(object);
    PodOutcome& outcome = outcomes_[key];
    outcome.pod = key;
    outcome.arrival = pod.times.arrival;
    if (!pod.object.node_name.empty()) {
      // Running when the run starts (a snapshot of a real cluster): its run starts now.
      Arrive(pod);
      ++arrived_;
      pod.running_since = seconds(0);
      outcome.started = seconds(0);
      outcome.state = PodState::kRunning;
      if (pod.times.duration)
        events_.emplace(pod.remaining.count(), EventKind::kCompletion, key, 0);
    } else {
      events_.emplace(pod.times.arrival.count(), EventKind::kArrival, key, 0);
    }
  }
}

void Simulator::Arrive(LivePod& pod) {
  const auto group = pod.object.meta.annotations.find("pod-group-name");
  if (group != pod.object.meta.annotations.end()) {
    const std::string key = pod.object.meta.namespace_name + "/" + group->second;
    const auto it = groups_.find(key);
    if (it != groups_.end()) {
      pod.group = key;
      if (live_in_group_[key]++ == 0) model_.Upsert(it->second);
    }
  }
  model_.Upsert(pod.object);
}

void Simulator::Completed(LivePod& pod) {
  model_.RemovePod(pod.object.meta.Key());
  if (pod.group.empty()) return;
  // A finished job's PodGroup leaves with its last pod, as its owner's deletion takes it: a
  // long trace would otherwise carry every job it ever ran into every cycle. One that gets
  // another pod later comes back with it.
  const auto live = live_in_group_.find(pod.group);
  if (live != live_in_group_.end() && --live->second == 0) {
    live_in_group_.erase(live);
    model_.RemovePodGroup(pod.group);
  }
}

void Simulator::ApplyEventsUpTo(seconds t) {
  while (!events_.empty() && std::get<0>(*events_.begin()) <= t.count()) {
    const auto [time, kind, key, run] = *events_.begin();
    events_.erase(events_.begin());
    LivePod& pod = pods_.at(key);
    if (kind == EventKind::kArrival) {
      Arrive(pod);
      ++waiting_;
      ++arrived_;
      continue;
    }
    if (run != pod.run || !pod.running_since) continue;  // a run an eviction ended
    Completed(pod);
    PodOutcome& outcome = outcomes_.at(key);
    outcome.finished = seconds(time);
    outcome.state = PodState::kCompleted;
    pod.running_since.reset();
  }
}

void Simulator::Bound(LivePod& pod, const framework::Decision& d, seconds t) {
  scheduler::ApplyBind(pod.object, d);
  model_.Upsert(pod.object);
  --waiting_;
  pod.running_since = t;
  ++pod.run;
  PodOutcome& outcome = outcomes_.at(d.pod);
  if (!outcome.started) outcome.started = t;
  outcome.state = PodState::kRunning;
  if (pod.times.duration) {
    events_.emplace((t + pod.remaining).count(), EventKind::kCompletion, d.pod, pod.run);
  }
}

void Simulator::Evicted(LivePod& pod, seconds t) {
  const std::string key = pod.object.meta.Key();
  PodOutcome& outcome = outcomes_.at(key);
  if (pod.running_since) {
    const int64_t ran = (t - *pod.running_since).count();
    const int64_t kept = ran * options_.checkpoint_permille / 1000;
    lost_gpu_milli_seconds_ += outcome.gpu_milli * (ran - kept);
    if (pod.times.duration) pod.remaining -= seconds(kept);
  }
  pod.running_since.reset();
  ++pod.run;  // its completion event is void
  ++outcome.evictions;
  ++evictions_;
  ++waiting_;
  outcome.state = PodState::kPending;
  scheduler::ResetAsRecreated(pod.object);
  model_.Upsert(pod.object);
}

bool Simulator::Cycle(seconds t) {
  std::shared_ptr<const core::SnapshotBuild> build = model_.Snapshot(options_.start + t);
  if (result_.cycles == 0) result_.diagnostics = build->diagnostics;
  scheduler::RunOptions run;
  run.config = options_.config;
  run.scheduler_name = options_.scheduler_name;
  run.queue_label_key = options_.queue_label_key;
  run.node_pool_label_key = options_.node_pool_label_key;
  run.now = options_.start + t;
  run.report_pods_and_groups = false;  // the samples read queues and the model's snapshot
  const scheduler::RunReport report = scheduler::RunCycle(*build, run);
  ++result_.cycles;
  // Let go of it, so that the model patches it for the sample below rather than copying it.
  build.reset();
  const bool decided = !report.cycles.empty() && !report.cycles.front().decisions.empty();
  if (!report.cycles.empty()) Apply(report.cycles.front(), t);
  // The sample is the cluster as the cycle leaves it: what holds until the next one.
  Sample(t, model_.Snapshot(options_.start + t)->snapshot, report);
  return decided;
}

void Simulator::Apply(const scheduler::CycleReport& cycle, seconds t) {
  for (const scheduler::AnnotationChange& a : cycle.annotations) {
    const auto group = groups_.find(a.pod_group);
    if (group == groups_.end()) continue;
    if (a.value) {
      group->second.meta.annotations[a.key] = *a.value;
    } else {
      group->second.meta.annotations.erase(a.key);
    }
    if (live_in_group_.count(a.pod_group) > 0) model_.Upsert(group->second);
  }
  for (const framework::Decision& d : cycle.decisions) {
    const auto pod = pods_.find(d.pod);
    if (pod == pods_.end()) continue;
    if (d.kind == framework::DecisionKind::kBind) Bound(pod->second, d, t);
    if (d.kind == framework::DecisionKind::kEvict) Evicted(pod->second, t);
  }
}

void Simulator::Sample(seconds t, const core::Snapshot& s, const scheduler::RunReport& report) {
  ClusterSample c;
  c.time = t;
  c.evictions = evictions_;
  c.lost_gpu_milli_seconds = lost_gpu_milli_seconds_;
  for (const core::Node& n : s.nodes) {
    if (!n.usable) continue;
    c.gpu_milli += n.allocatable.gpu_milli.value();
    int64_t idle = 0;
    for (const core::GpuDevice& d : n.gpus) {
      if (d.state == core::GpuDevice::State::kIdle) ++idle;
      if (d.state == core::GpuDevice::State::kShared && d.used_portion_milli.value() < 1000) {
        ++c.partly_used_gpus;
      }
    }
    if (idle < options_.gang_gpus) c.stranded_gpus += idle;
  }
  std::vector<int64_t> allocated(s.queues.size(), 0);
  std::vector<int64_t> pending(s.queues.size(), 0);
  for (const core::Pod& pod : s.pods) {
    if (!pod.ours || pod.job == core::kNone) continue;
    const core::Job& job = s.jobs[static_cast<size_t>(pod.job)];
    const auto outcome = outcomes_.find(pod.key);
    const core::Node* node =
        pod.node == core::kNone ? nullptr : &s.nodes[static_cast<size_t>(pod.node)];
    const int64_t gpu = core::QuotaOf(pod, node, s)[core::ShareResource::kGpu].value();
    if (outcome != outcomes_.end() && outcome->second.queue.empty()) {
      outcome->second.queue = job.queue_name;
      outcome->second.pod_group = job.key;
    }
    // What it holds once placed; until then what it asks for.
    if (outcome != outcomes_.end() &&
        (core::IsAllocatedStatus(pod.status) || outcome->second.gpu_milli == 0)) {
      outcome->second.gpu_milli = gpu;
    }
    if (core::IsActiveUsedStatus(pod.status)) ++c.running_pods;
    if (pod.status == core::PodStatus::kPending) ++c.pending_pods;
    for (core::Index q = job.queue; q != core::kNone; q = s.queues[static_cast<size_t>(q)].parent) {
      if (core::IsAllocatedStatus(pod.status)) allocated[static_cast<size_t>(q)] += gpu;
      if (pod.status == core::PodStatus::kPending) ++pending[static_cast<size_t>(q)];
    }
    if (core::IsAllocatedStatus(pod.status)) {
      c.allocated_gpu_milli += gpu;
      if (pod.gpu.is_shared()) c.shared_gpu_milli += gpu;
    }
  }
  std::vector<int64_t> fractions;
  for (const scheduler::QueueReport& q : report.queues) {
    const core::Index at = s.FindQueue(q.name);
    const int64_t share = q.fair_share[core::ShareResource::kGpu].value();
    if (at == core::kNone || !q.children.empty() || share <= 0) continue;
    const int64_t held = allocated[static_cast<size_t>(at)];
    fractions.push_back(std::min<int64_t>(held * 1000 / share, kMaxFairShareFraction));
  }
  c.jain_permille = JainPermille(fractions);
  result_.cluster.push_back(c);
  if (OccupancyDue(t)) RecordOccupancy(t, s);
  for (const scheduler::QueueReport& q : report.queues) {
    const core::Index at = s.FindQueue(q.name);
    if (at == core::kNone) continue;
    QueueSample sample;
    sample.time = t;
    sample.queue = q.name;
    sample.allocated_gpu_milli = allocated[static_cast<size_t>(at)];
    sample.fair_share_gpu_milli = q.fair_share[core::ShareResource::kGpu].value();
    const core::Bound& deserved = q.deserved[core::ShareResource::kGpu];
    sample.deserved_gpu_milli = deserved.is_unlimited() ? -1 : deserved.amount().value();
    sample.pending_pods = pending[static_cast<size_t>(at)];
    result_.queues.push_back(sample);
  }
}

bool Simulator::OccupancyDue(seconds t) {
  if (!options_.occupancy_at.empty()) {
    bool due = false;
    while (next_occupancy_ < options_.occupancy_at.size() &&
           options_.occupancy_at[next_occupancy_] <= t) {
      due = true;
      ++next_occupancy_;
    }
    return due;
  }
  if (t < next_occupancy_mark_) return false;
  next_occupancy_mark_ = (t / occupancy_grid_ + 1) * occupancy_grid_;
  return true;
}

void Simulator::RecordOccupancy(seconds t, const core::Snapshot& s) {
  OccupancySnapshot snapshot;
  snapshot.time = t;
  for (const core::Node& n : s.nodes) {
    if (n.gpus.empty()) continue;
    NodeOccupancy& node = snapshot.nodes.emplace_back();
    node.name = n.name;
    node.pool = n.node_pool;
    node.usable = n.usable;
    for (const core::GpuDevice& d : n.gpus) {
      std::vector<GpuHolder>& holders = node.gpus.emplace_back();
      for (const core::GpuDevice::Holder& h : d.holders) {
        const core::Pod& pod = s.pods[static_cast<size_t>(h.pod)];
        const std::string queue =
            pod.job == core::kNone ? "" : s.jobs[static_cast<size_t>(pod.job)].queue_name;
        holders.push_back({queue, h.portion_milli.value()});
      }
      std::sort(holders.begin(), holders.end(), [](const GpuHolder& a, const GpuHolder& b) {
        return std::tie(a.queue, a.milli) < std::tie(b.queue, b.milli);
      });
    }
  }
  std::sort(snapshot.nodes.begin(), snapshot.nodes.end(),
            [](const NodeOccupancy& a, const NodeOccupancy& b) { return a.name < b.name; });
  std::vector<OccupancySnapshot>& kept = result_.occupancy;
  // The last cycle's snapshot replaces one taken at the same instant.
  if (!kept.empty() && kept.back().time == t) kept.pop_back();
  kept.push_back(std::move(snapshot));
  if (options_.occupancy_at.empty() && kept.size() > options_.max_occupancy_snapshots) {
    // Keep every other one, on a grid twice as wide.
    std::vector<OccupancySnapshot> thinned;
    for (size_t i = 0; i < kept.size(); i += 2) thinned.push_back(std::move(kept[i]));
    kept = std::move(thinned);
    occupancy_grid_ *= 2;
    next_occupancy_mark_ = (t / occupancy_grid_ + 1) * occupancy_grid_;
  }
}

SimulationResult Simulator::Run() {
  seconds t(0);
  seconds last_active(0);
  const seconds idle_step = std::max(options_.period, options_.settle / 60);
  while (true) {
    ApplyEventsUpTo(t);
    const bool decided = Cycle(t);
    if (decided) last_active = t;
    if (options_.progress) {
      options_.progress({t, arrived_, static_cast<int64_t>(pods_.size()), result_.cycles});
    }
    if (options_.until && t >= *options_.until) break;
    // Nothing will arrive or finish, and nothing waits: only pods running for ever are left.
    if (events_.empty() && waiting_ == 0) break;
    if (events_.empty() && !decided && t - last_active >= options_.settle) break;
    const std::optional<seconds> next_event =
        events_.empty()
            ? std::nullopt
            : std::optional(OnGrid(seconds(std::get<0>(*events_.begin())), options_.period));
    seconds next = t + options_.period;
    if (waiting_ == 0) {
      // Nothing to place: the next arrival or completion is the next thing that can happen.
      next = std::max(next, *next_event);
    } else if (!decided) {
      // Waiting work that the last cycle could not place: nothing changes until the next event,
      // but time-based rules get a cycle every `idle_step` so they act near their moment.
      next = std::max(next, next_event ? std::min(t + idle_step, *next_event) : t + idle_step);
    }
    if (options_.until) next = std::min(next, std::max(t + seconds(1), *options_.until));
    t = next;
  }
  result_.end = t;
  // The cluster as the run left it, unless the last snapshot was taken then.
  if (options_.occupancy_at.empty() &&
      (result_.occupancy.empty() || result_.occupancy.back().time != t)) {
    RecordOccupancy(t, model_.Snapshot(options_.start + t)->snapshot);
  }
  for (auto& [key, outcome] : outcomes_) result_.pods.push_back(std::move(outcome));
  return std::move(result_);
}

}  // namespace

std::string_view PodStateName(PodState s) {
  switch (s) {
    case PodState::kPending:
      return "Pending";
    case PodState::kRunning:
      return "Running";
    case PodState::kCompleted:
      return "Completed";
  }
  return "Unknown";
}

int64_t JainPermille(const std::vector<int64_t>& fractions) {
  if (fractions.empty()) return -1;
  int64_t sum = 0;
  int64_t sum_of_squares = 0;
  for (const int64_t x : fractions) {
    sum += x;
    sum_of_squares += x * x;
  }
  if (sum_of_squares == 0) return 1000;
  // (sum)^2 * 1000 / (n * sum of squares), without overflow for fractions up to 10,000 permille
  // of up to 10,000 queues: divide the square by n first, keeping the remainder's share.
  const auto n = static_cast<int64_t>(fractions.size());
  return (sum * sum / n * 1000 + sum * sum % n * 1000 / n) / sum_of_squares;
}

Result<SimulationResult> Simulate(core::ClusterObjects objects, const SimulationOptions& options) {
  Result<std::map<std::string, PodTimes>> times = ReadPodTimes(objects, options.scheduler_name);
  if (!times.ok()) return Status::Error(times.message());
  Simulator simulator(std::move(objects), std::move(times.value()), options);
  return simulator.Run();
}

}  // namespace quotient::simulate
