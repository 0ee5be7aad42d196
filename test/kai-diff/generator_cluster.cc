// Nodes (GPU, CPU-only, MIG mixed and single strategy; pools, taints, zones, unusable ones) and
// the queue tree (1-3 levels; quotas, limits, weights, priorities, min-runtimes).
#include <algorithm>
#include <string>

#include "generator_internal.h"

namespace quotient::kaidiff::gen {
namespace {

using nlohmann::json;

json Resources(Builder& b, NodeState& n, const std::string& kind, json& labels) {
  const int64_t cores = b.rng.Pick(std::vector<int64_t>{8, 16, 32, 64});
  const int64_t mem_gi = b.rng.Pick(std::vector<int64_t>{32, 64, 128, 256});
  n.cpu_free = cores * 1000;
  n.mem_free = mem_gi;
  json alloc = {
      {"cpu", std::to_string(cores)}, {"memory", std::to_string(mem_gi) + "Gi"}, {"pods", "110"}};
  if (kind == "gpu") {
    const int gpus = b.rng.Pick(std::vector<int>{1, 2, 4, 4, 8});
    n.whole_free = gpus;
    n.gpu_memory_mib = b.On("mixed-gpu-memory") && b.rng.Chance(50) ? 40960 : 81920;
    alloc["nvidia.com/gpu"] = std::to_string(gpus);
    labels["nvidia.com/gpu.count"] = std::to_string(gpus);
    labels["nvidia.com/gpu.memory"] = std::to_string(n.gpu_memory_mib);
    labels["nvidia.com/gpu.product"] =
        n.gpu_memory_mib == 40960 ? "NVIDIA-A100-SXM4-40GB" : "NVIDIA-A100-SXM4-80GB";
    b.total_gpus += gpus;
  } else if (kind == "mig-single") {
    // Single strategy: every MIG instance is an nvidia.com/gpu device.
    const int gpus = 7;
    n.whole_free = gpus;
    n.mig_single = true;
    alloc["nvidia.com/gpu"] = std::to_string(gpus);
    labels["nvidia.com/mig.strategy"] = "single";
    labels["nvidia.com/gpu.count"] = std::to_string(gpus);
    labels["nvidia.com/gpu.memory"] = "9728";
    labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb";
    b.total_gpus += gpus;
    b.Tag("mig-single");
  } else if (kind == "mig") {
    // Mixed strategy on one or two A100-80GB: a layout of 1g/2g/3g instances per device.
    const int devices = b.rng.Between(1, 2);
    for (int d = 0; d < devices; ++d) {
      switch (b.rng.Below(3)) {
        case 0:
          n.mig_free["1g.10gb"] += 7;
          break;
        case 1:
          n.mig_free["3g.40gb"] += 2;
          n.mig_free["1g.10gb"] += 1;
          break;
        default:
          n.mig_free["2g.20gb"] += 3;
          n.mig_free["1g.10gb"] += 1;
          break;
      }
    }
    for (const auto& [profile, count] : n.mig_free) {
      alloc["nvidia.com/mig-" + profile] = std::to_string(count);
    }
    labels["nvidia.com/mig.strategy"] = "mixed";
    labels["node-role.kubernetes.io/mig-enabled"] = "true";
    labels["nvidia.com/gpu.count"] = std::to_string(devices);
    labels["nvidia.com/gpu.memory"] = "81920";
    labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
    b.total_gpus += devices;
    b.has_mig_mixed = true;
    b.Tag("mig");
  }
  return alloc;
}

std::string NodeKind(Builder& b, int i) {
  const int roll = b.rng.Below(100);
  if (b.On("mig") && roll < 20) return "mig";
  if (b.On("mig-single") && roll >= 20 && roll < 35) return "mig-single";
  if (b.On("cpu-only") && roll >= 35 && roll < 50 && i > 0) return "cpu";
  return "gpu";
}

}  // namespace

void AddNodes(Builder& b) {
  const int roll = b.rng.Below(100);
  const int count = roll < 60   ? b.rng.Between(1, 4)
                    : roll < 90 ? b.rng.Between(5, 8)
                                : b.rng.Between(9, 12);
  const bool zones = b.On("selector") || b.On("affinity");
  std::set<int> gpu_memories;
  for (int i = 0; i < count; ++i) {
    NodeState n;
    n.name = "node-" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1);
    json labels = {{"kubernetes.io/hostname", n.name}, {"kubernetes.io/os", "linux"}};
    const std::string kind = NodeKind(b, i);
    json alloc = Resources(b, n, kind, labels);
    if (kind == "gpu") {
      b.has_gpu_nodes = true;
      gpu_memories.insert(n.gpu_memory_mib);
    }
    if (kind == "cpu") b.Tag("cpu-only");
    if (zones) {
      n.zone = b.rng.Chance(50) ? "zone-a" : "zone-b";
      labels["topology.kubernetes.io/zone"] = n.zone;
    }
    if (b.On("node-pools") && b.rng.Chance(50)) {
      n.pool = b.rng.Chance(60) ? "pool-a" : "pool-b";
      labels["kai.scheduler/node-pool"] = n.pool;
      b.pools.insert(n.pool);
      b.Tag("node-pools");
    }
    json spec = json::object();
    if (b.On("taints") && kind != "cpu" && b.rng.Chance(40)) {
      n.tainted = true;
      spec["taints"] =
          json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
      b.Tag("taints");
    }
    std::string ready = "True";
    if (b.On("unusable-node") && count > 1 && i == count - 1) {
      if (b.rng.Chance(50)) {
        ready = "False";
        n.usable = false;
      } else {
        spec["unschedulable"] = true;  // cordoned: running pods stay, nothing new lands
        spec["taints"] = json::array({{{"key", "node.kubernetes.io/unschedulable"},
                                       {"effect", "NoSchedule"},
                                       {"timeAdded", "2026-03-01T09:00:00Z"}}});
      }
      b.Tag("unusable-node");
    }
    b.nodes.push_back(
        {{"apiVersion", "v1"},
         {"kind", "Node"},
         {"metadata",
          {{"name", n.name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}, {"labels", labels}}},
         {"spec", spec},
         {"status",
          {{"allocatable", alloc},
           {"capacity", alloc},
           {"conditions",
            json::array({{{"type", "Ready"},
                          {"status", ready},
                          {"reason", ready == "True" ? "KubeletReady" : "KubeletNotReady"},
                          {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})}}}});
    b.node_states.push_back(n);
  }
  if (gpu_memories.size() > 1) b.Tag("mixed-gpu-memory");
}

namespace {

// One resource's {quota, limit, overQuotaWeight}; GPU in devices, CPU in millicores, memory
// in MB, as the Queue CRD has them.
json ResourceSpec(Builder& b, const std::string& resource, int siblings) {
  json quota;
  const int roll = b.rng.Below(100);
  if (resource != "gpu" && !(b.On("cpu-memory-quota") && b.rng.Chance(50))) {
    return {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  }
  if (b.On("unlimited-quota") && roll < 15) {
    quota = -1;
    b.Tag("unlimited-quota");
  } else if (b.On("zero-quota") && roll >= 15 && roll < 35) {
    quota = 0;
    b.Tag("zero-quota");
  } else if (b.On("negative-quota") && roll >= 35 && roll < 47) {
    quota = b.rng.Pick(std::vector<int>{-2, -5});
    b.Tag("negative-quota");
  } else if (resource == "gpu" && b.On("fractional-quota") && roll >= 47 && roll < 62) {
    quota = b.rng.Chance(50) ? 0.5 : 1.5;
    b.Tag("fractional-quota");
  } else if (resource == "gpu") {
    quota = b.rng.Between(1, std::max(1, b.total_gpus / std::max(1, siblings) + 1));
  } else if (resource == "cpu") {
    quota = b.rng.Pick(std::vector<int>{0, 4000, 8000, 16000, 64000});
  } else {
    quota = b.rng.Pick(std::vector<int>{0, 16000, 64000, 256000});
  }
  json limit = -1;
  if (b.On("limits") && b.rng.Chance(40)) {
    const double q = quota.get<double>();
    const int pick = b.rng.Below(4);
    if (pick == 0) {
      limit = 0;
    } else if (pick == 1 && q > 1) {
      limit = resource == "gpu" ? 1 : 1000;  // below the quota
    } else {
      const int extra = resource == "gpu" ? b.rng.Between(0, 2) : b.rng.Between(0, 2) * 4000;
      limit = std::max(0.0, q) + extra;
      if (limit.get<double>() == static_cast<double>(limit.get<int64_t>())) {
        limit = limit.get<int64_t>();
      }
    }
    b.Tag("limits");
  }
  json weight = 1;
  const int w = b.rng.Below(100);
  if (b.On("zero-weight") && w < 20) {
    weight = 0;
    b.Tag("zero-weight");
  } else if (b.On("negative-weight") && w >= 20 && w < 40) {
    weight = b.rng.Pick(std::vector<int>{-1, -2});
    b.Tag("negative-weight");
  } else if (w >= 75) {
    weight = b.rng.Between(2, 4);
  }
  return {{"quota", quota}, {"limit", limit}, {"overQuotaWeight", weight}};
}

void AddQueue(Builder& b, const std::string& name, const std::string& parent, int siblings,
              bool leaf) {
  json spec = json::object();
  if (!parent.empty()) spec["parentQueue"] = parent;
  if (b.On("no-resources") && b.rng.Chance(25)) {
    b.Tag("no-resources");
  } else {
    spec["resources"] = {{"gpu", ResourceSpec(b, "gpu", siblings)},
                         {"cpu", ResourceSpec(b, "cpu", siblings)},
                         {"memory", ResourceSpec(b, "memory", siblings)}};
    if (spec["resources"]["cpu"]["quota"] != -1 || spec["resources"]["memory"]["quota"] != -1) {
      b.Tag("cpu-memory-quota");
    }
  }
  if (b.On("queue-priority") && b.rng.Chance(50)) {
    spec["priority"] = b.rng.Pick(std::vector<int>{50, 100, 150, 200});
    b.Tag("queue-priority");
  }
  if (b.On("min-runtime") && b.rng.Chance(30)) {
    spec["preemptMinRuntime"] = b.rng.Pick(std::vector<std::string>{"5m", "1h"});
    spec["reclaimMinRuntime"] = b.rng.Pick(std::vector<std::string>{"5m", "1h"});
    b.Tag("min-runtime");
  }
  const int day = static_cast<int>(b.queues.size()) + 1;
  b.queues.push_back({{"apiVersion", "scheduling.run.ai/v2"},
                      {"kind", "Queue"},
                      {"metadata",
                       {{"name", name},
                        {"creationTimestamp", "2026-01-" + std::string(day < 10 ? "0" : "") +
                                                  std::to_string(day) + "T00:00:00Z"}}},
                      {"spec", spec}});
  if (leaf) b.leaf_queues.push_back(name);
}

}  // namespace

void AddQueues(Builder& b) {
  const int depth = b.rng.Between(1, 3);
  b.Tag("tree-depth-" + std::to_string(depth));
  const int tops = depth == 1   ? b.rng.Between(1, 4)
                   : depth == 2 ? b.rng.Between(1, 3)
                                : b.rng.Between(1, 2);
  for (int t = 0; t < tops; ++t) {
    const std::string top(1, static_cast<char>('a' + t));
    AddQueue(b, top, "", tops, depth == 1);
    if (depth == 1) continue;
    const int mids = depth == 2 ? b.rng.Between(1, 3) : b.rng.Between(1, 2);
    for (int m = 0; m < mids; ++m) {
      const std::string mid = top + "-" + std::to_string(m + 1);
      AddQueue(b, mid, top, mids, depth == 2);
      if (depth == 2) continue;
      const int leaves = b.rng.Between(1, 2);
      for (int l = 0; l < leaves; ++l) {
        AddQueue(b, mid + "-" + std::to_string(l + 1), mid, leaves, true);
      }
    }
  }
}

}  // namespace quotient::kaidiff::gen
