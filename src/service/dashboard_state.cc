#include "service/dashboard_state.h"

#include <algorithm>
#include <utility>

#include "core/gpu_sharing.h"

namespace quotient::service {
namespace {

using nlohmann::json;

int64_t EpochMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

json BoundJson(const core::Bound& b) {
  return b.is_unlimited() ? json(nullptr) : json(b.amount().value());
}

json ResourcesJson(const scheduler::QueueReport& q) {
  json out = json::object();
  for (core::ShareResource r : core::kShareResources) {
    out[std::string(core::ShareResourceName(r))] = {
        {"deserved", BoundJson(q.deserved[r])},
        {"limit", BoundJson(q.limit[r])},
        {"fair_share", q.fair_share[r].value()},
        {"allocated", q.allocated[r].value()},
        {"allocated_non_preemptible", q.allocated_non_preemptible[r].value()},
        {"requested", q.requested[r].value()}};
  }
  return out;
}

json ShareVectorJson(const core::ShareVector& v) {
  json out = json::object();
  for (core::ShareResource r : core::kShareResources) {
    out[std::string(core::ShareResourceName(r))] = v[r].value();
  }
  return out;
}

json ResourceVectorJson(const core::ResourceVector& v) {
  return {{"gpu", v.gpu_milli.value()},
          {"cpu", v.cpu_milli.value()},
          {"memory", v.memory_bytes.value()}};
}

json QueuesJson(const core::Snapshot& snapshot, const scheduler::RunReport& report) {
  json queues = json::array();
  for (const scheduler::QueueReport& q : report.queues) {
    json queue = {{"name", q.name},
                  {"parent", q.parent},
                  {"children", q.children},
                  {"priority", q.priority},
                  {"resources", ResourcesJson(q)}};
    if (const core::Index i = snapshot.FindQueue(q.name); i != core::kNone) {
      const core::Queue& sq = snapshot.queues[static_cast<size_t>(i)];
      if (!sq.display_name.empty() && sq.display_name != q.name) {
        queue["display_name"] = sq.display_name;
      }
      if (!sq.problems.empty()) queue["problems"] = sq.problems;
    }
    queues.push_back(std::move(queue));
  }
  return queues;
}

// One GPU of the map while the cycle's decisions are applied to it.
struct Holder {
  core::Index pod = core::kNone;
  int64_t milli = 0;
  bool bound_now = false;  // placed by this cycle
  bool evicting = false;   // this cycle evicts its pod
};
struct Gpu {
  bool shared = false;
  std::string group;  // shared: the GPU group
  std::vector<Holder> holders;
  bool idle() const { return !shared && holders.empty(); }
};
struct NodeMap {
  std::vector<Gpu> gpus;
  core::ResourceVector used;
};

std::vector<NodeMap> MapsOf(const core::Snapshot& snapshot) {
  std::vector<NodeMap> maps(snapshot.nodes.size());
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) {
    const core::Node& node = snapshot.nodes[n];
    maps[n].used = node.used;
    maps[n].gpus.reserve(node.gpus.size());
    for (const core::GpuDevice& device : node.gpus) {
      Gpu gpu;
      gpu.shared = device.state == core::GpuDevice::State::kShared;
      gpu.group = device.group;
      for (const core::GpuDevice::Holder& h : device.holders) {
        gpu.holders.push_back({h.pod, h.portion_milli.value(), false, false});
      }
      maps[n].gpus.push_back(std::move(gpu));
    }
  }
  return maps;
}

Gpu& TakeIdle(NodeMap& map) {
  for (Gpu& gpu : map.gpus) {
    if (gpu.idle()) return gpu;
  }
  map.gpus.emplace_back();
  return map.gpus.back();
}

// The portion of one device a shared pod gets on `node` (the snapshot builder's rule).
int64_t SharedPortion(const core::Pod& pod, const core::Node& node) {
  if (pod.gpu.kind == core::GpuSharing::Kind::kFraction) return pod.gpu.portion_milli.value();
  if (!node.gpu_memory_mib) return 1000;
  return std::min<int64_t>(
      1000, core::MemoryToPortionMilli(pod.gpu.memory_mib, *node.gpu_memory_mib).value());
}

// A bind of this cycle, placed as the next snapshot will place it.
void PlaceBind(const core::Snapshot& snapshot, const framework::Decision& d,
               std::vector<NodeMap>& maps) {
  const core::Index p = snapshot.FindPod(d.pod);
  const core::Index n = snapshot.FindNode(d.node);
  if (p == core::kNone || n == core::kNone) return;
  const core::Pod& pod = snapshot.pods[static_cast<size_t>(p)];
  const core::Node& node = snapshot.nodes[static_cast<size_t>(n)];
  NodeMap& map = maps[static_cast<size_t>(n)];
  map.used += pod.request;
  if (pod.gpu.kind == core::GpuSharing::Kind::kWhole) {
    for (int64_t k = 0; k < pod.gpu.whole_devices; ++k) {
      TakeIdle(map).holders.push_back({p, 1000, true, false});
    }
    return;
  }
  if (!pod.gpu.is_shared()) return;
  std::vector<std::string> groups = d.gpu_groups;
  for (auto k = static_cast<int64_t>(groups.size()); k < pod.gpu.num_devices; ++k) {
    groups.push_back(pod.key + "#" + std::to_string(k));
  }
  for (const std::string& group : groups) {
    auto found = std::find_if(map.gpus.begin(), map.gpus.end(),
                              [&](const Gpu& g) { return g.shared && g.group == group; });
    Gpu* gpu = found != map.gpus.end() ? &*found : &TakeIdle(map);
    gpu->shared = true;
    gpu->group = group;
    gpu->holders.push_back({p, SharedPortion(pod, node), true, false});
  }
}

void MarkEvicted(const core::Snapshot& snapshot, const framework::Decision& d,
                 std::vector<NodeMap>& maps) {
  const core::Index p = snapshot.FindPod(d.pod);
  if (p == core::kNone) return;
  const core::Index n = snapshot.pods[static_cast<size_t>(p)].node;
  if (n == core::kNone) return;
  for (Gpu& gpu : maps[static_cast<size_t>(n)].gpus) {
    for (Holder& h : gpu.holders) {
      if (h.pod == p) h.evicting = true;
    }
  }
}

std::string QueueOf(const core::Snapshot& snapshot, const core::Pod& pod) {
  if (pod.job == core::kNone) return "";
  return snapshot.jobs[static_cast<size_t>(pod.job)].queue_name;
}

json GpuJson(const core::Snapshot& snapshot, const Gpu& gpu) {
  json out = json::object();
  if (gpu.shared) out["group"] = gpu.group;
  json holders = json::array();
  for (const Holder& h : gpu.holders) {
    // A reservation pod holds its group's device for the fractional pods and no portion of it.
    if (h.milli <= 0) continue;
    const core::Pod& pod = snapshot.pods[static_cast<size_t>(h.pod)];
    json holder = {{"pod", pod.key}, {"queue", QueueOf(snapshot, pod)}, {"milli", h.milli}};
    if (!pod.ours) holder["scheduler"] = pod.scheduler_name;
    if (h.bound_now) holder["bound_now"] = true;
    if (h.evicting) holder["evicting"] = true;
    holders.push_back(std::move(holder));
  }
  if (!holders.empty()) out["holders"] = std::move(holders);
  return out;
}

json NodesJson(const DashboardInput& input) {
  const core::Snapshot& snapshot = *input.snapshot;
  std::vector<NodeMap> maps = MapsOf(snapshot);
  for (const scheduler::CycleReport& cycle : input.report->cycles) {
    for (const framework::Decision& d : cycle.decisions) {
      if (d.kind == framework::DecisionKind::kBind) PlaceBind(snapshot, d, maps);
      if (d.kind == framework::DecisionKind::kEvict) MarkEvicted(snapshot, d, maps);
    }
  }
  json nodes = json::array();
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) {
    const core::Node& node = snapshot.nodes[n];
    json out = {{"name", node.name},
                {"pool", node.node_pool},
                {"usable", node.usable},
                {"allocatable", ResourceVectorJson(node.allocatable)},
                {"used", ResourceVectorJson(maps[n].used)}};
    if (!node.usable) out["unusable_reason"] = node.unusable_reason;
    if (node.mig_enabled) out["mig"] = true;
    if (node.gpu_memory_mib) out["gpu_memory_mib"] = *node.gpu_memory_mib;
    json gpus = json::array();
    for (const Gpu& gpu : maps[n].gpus) gpus.push_back(GpuJson(snapshot, gpu));
    out["gpus"] = std::move(gpus);
    json unhealthy = json::array();
    if (auto it = input.unhealthy_gpus.find(node.name); it != input.unhealthy_gpus.end()) {
      for (const core::UnhealthyGpu& g : it->second) {
        unhealthy.push_back({{"index", g.index}, {"uuid", g.uuid}, {"reason", g.reason}});
      }
    }
    // The agent's list is what says which GPUs; without it (an annotation the cache no longer
    // has) the snapshot's count still shows.
    for (auto k = static_cast<int64_t>(unhealthy.size()); k < node.unhealthy_gpus; ++k) {
      unhealthy.push_back({{"index", -1}, {"uuid", ""}, {"reason", ""}});
    }
    if (!unhealthy.empty()) out["unhealthy"] = std::move(unhealthy);
    nodes.push_back(std::move(out));
  }
  return nodes;
}

json PendingJson(const DashboardInput& input, size_t& total, int64_t& pods_total) {
  const core::Snapshot& snapshot = *input.snapshot;
  std::map<std::string, int64_t> pending_pods;  // by PodGroup
  for (const scheduler::PodReport& pod : input.report->pods) {
    if (pod.status == "Pending") ++pending_pods[pod.pod_group];
  }
  json pending = json::array();
  total = 0;
  pods_total = 0;
  for (const scheduler::PodGroupReport& group : input.report->pod_groups) {
    if (group.status != "Pending") continue;
    ++total;
    pods_total += pending_pods[group.pod_group];
    if (pending.size() >= input.max_pending) continue;
    std::vector<std::string> reasons = group.reasons;
    if (reasons.empty() && !group.not_ready.empty()) reasons.push_back(group.not_ready);
    json out = {{"pod_group", group.pod_group},
                {"queue", group.queue},
                {"node_pool", group.node_pool},
                {"implicit", group.implicit},
                {"min_member", group.min_member},
                {"pending_pods", pending_pods[group.pod_group]},
                {"requested", ShareVectorJson(group.requested)},
                {"reasons", reasons}};
    if (const core::Index j = snapshot.FindJob(group.pod_group); j != core::kNone) {
      const core::Job& job = snapshot.jobs[static_cast<size_t>(j)];
      out["created_ms"] = EpochMs(job.creation_time);
    }
    pending.push_back(std::move(out));
  }
  return pending;
}

json EvictionJson(const EvictionRecord& e) {
  return {{"time_ms", EpochMs(e.time)}, {"action", e.action}, {"pod", e.pod},
          {"pod_group", e.pod_group},   {"queue", e.queue},   {"node", e.node},
          {"reason", e.reason}};
}

}  // namespace

void EvictionLog::Add(EvictionRecord record) {
  ++total_;
  if (capacity_ == 0) return;
  records_.push_front(std::move(record));
  while (records_.size() > capacity_) records_.pop_back();
}

json BuildDashboardState(const DashboardInput& input) {
  size_t pending_total = 0;
  int64_t pending_pods_total = 0;
  json pending = PendingJson(input, pending_total, pending_pods_total);
  return {{"scheduler", input.scheduler_name},
          {"node_pool", input.node_pool},
          {"computed_at_ms", EpochMs(input.computed_at)},
          {"cycle", input.cycle},
          {"cycle_ms", input.cycle_duration.count()},
          {"schedule_period_ms", input.schedule_period.count()},
          {"units", {{"gpu", "milli-GPU"}, {"cpu", "millicores"}, {"memory", "bytes"}}},
          {"queues", QueuesJson(*input.snapshot, *input.report)},
          {"nodes", NodesJson(input)},
          {"pending", std::move(pending)},
          {"pending_total", pending_total},
          {"pending_pods_total", pending_pods_total}};
}

json DashboardDocument(const EvictionLog& evictions, const DocumentFacts& facts) {
  json recent = json::array();
  for (const EvictionRecord& e : evictions.Recent()) recent.push_back(EvictionJson(e));
  const bool cycled = facts.last_cycle > 0;
  return {{"version", 1},
          {"served_at_ms", EpochMs(facts.served_at)},
          {"leading", facts.leading},
          {"last_cycle", facts.last_cycle},
          {"last_cycle_at_ms", cycled ? json(EpochMs(facts.last_cycle_at)) : json(nullptr)},
          {"schedule_period_ms", facts.schedule_period.count()},
          {"state_pending", facts.state_pending},
          {"evictions", std::move(recent)},
          {"evictions_total", evictions.total()},
          {"eviction_capacity", evictions.capacity()}};
}

}  // namespace quotient::service
