// The mixed workload's running pods: bench/synthetic_cluster.cc's shapes, made consistent.
//
// Of N running pods (integer tenths, t = N / 10): 2t share GPUs in pairs (gpu-fraction 0.5, one
// runai-gpu-group per pair), t take 2 GPUs, 3t take 1 GPU, t run in gangs of 2, 4 or 8 one-GPU
// pods with a PodGroup (the last gang takes what is left), and the rest (about 3t) are CPU-only.
// That is 0.7 GPU per pod, so at the presets' ten pods per node they hold about 87.5% of the GPUs
// (the benchmark's mix, 0.8, leaves no room for packing to be exact). The work comes in shuffled
// order and is packed node by node within its pool, so the cluster is full from its first node on
// and free at its end; CPU-only pods are then spread round-robin over the pool.
//
// The state stays one a scheduler could have produced: no node holds more than it has (CPU,
// memory, pods, GPU devices, one shared device per pair); no queue holds more GPUs than its
// limit; and only work within its queue's quota is non-preemptible (every seventh unit asks for
// class `inference`, priority 125, and gets it when its queue's quota has room).
#include <algorithm>
#include <optional>

#include "generate/plan_steps.h"

namespace quotient::generate::plan {
namespace {

constexpr int64_t kPodCpuMilli = 4000;
constexpr int64_t kPodMemoryBytes = kPodCpuMilli * 4'000'000;  // 16 GB, as the benchmark's pods
constexpr const char* kNamespace = "run";

enum class UnitKind { kOneGpu, kTwoGpus, kSharedPair, kCpuOnly, kGang };

// A piece of running work: one pod, a pair of pods sharing a GPU, or a gang.
struct Unit {
  UnitKind kind = UnitKind::kCpuOnly;
  int pods = 1;
};

// The GPUs a unit holds, as its queue counts them (a pair shares one device).
int64_t UnitGpus(const Unit& unit) {
  switch (unit.kind) {
    case UnitKind::kOneGpu:
    case UnitKind::kSharedPair:
      return 1;
    case UnitKind::kTwoGpus:
      return 2;
    case UnitKind::kGang:
      return unit.pods;
    case UnitKind::kCpuOnly:
      return 0;
  }
  return 0;
}

std::vector<Unit> ShuffledUnits(int running_pods, DeterministicRandom& random) {
  const int tenth = running_pods / 10;
  std::vector<Unit> units;
  units.insert(units.end(), static_cast<size_t>(tenth), Unit{UnitKind::kSharedPair, 2});
  units.insert(units.end(), static_cast<size_t>(tenth), Unit{UnitKind::kTwoGpus, 1});
  units.insert(units.end(), static_cast<size_t>(3 * tenth), Unit{UnitKind::kOneGpu, 1});
  for (int left = tenth; left > 0;) {
    int size = std::min(2 << random.Below(3), left);  // 2, 4 or 8
    if (left - size < 2) size = left;  // the last gang takes the rest: no gang of one after it
    units.push_back(Unit{UnitKind::kGang, size});
    left -= size;
  }
  units.insert(units.end(), static_cast<size_t>(running_pods - 7 * tenth),
               Unit{UnitKind::kCpuOnly, 1});
  random.Shuffle(units);
  return units;
}

// What is still free on one node.
struct NodeRoom {
  int64_t cpu_milli = kNodeCpuMilli;
  int64_t memory_bytes = kNodeMemoryBytes;
  int pods = kNodePods;
  int gpus = 0;

  bool Fits(int pod_count, int gpu_count) const {
    return pods >= pod_count && gpus >= gpu_count && cpu_milli >= pod_count * kPodCpuMilli &&
           memory_bytes >= pod_count * kPodMemoryBytes;
  }
  void Take(int pod_count, int gpu_count) {
    pods -= pod_count;
    gpus -= gpu_count;
    cpu_milli -= pod_count * kPodCpuMilli;
    memory_bytes -= pod_count * kPodMemoryBytes;
  }
};

// Places pods on the nodes of each pool: GPU work packed from the pool's first node on (a cursor
// that only moves forward, as the benchmark packs), CPU-only pods round-robin.
class Packer {
 public:
  Packer(const std::vector<PlannedNode>& nodes, int pools) : nodes_(nodes) {
    pools_.resize(static_cast<size_t>(pools));
    for (size_t i = 0; i < nodes.size(); ++i) {
      rooms_.push_back(NodeRoom{});
      rooms_.back().gpus = nodes[i].gpus;
      Pool& pool = pools_[static_cast<size_t>(
          PoolIndex(static_cast<int>(i), pools, static_cast<int>(nodes.size())))];
      if (pool.end == 0) pool.begin = pool.gpu_cursor = pool.cpu_cursor = i;
      pool.end = i + 1;
    }
  }

  // The node for `pod_count` pods sharing `gpu_count` devices (a pair) or one pod of
  // `gpu_count` devices; nullopt when the pool is full.
  std::optional<size_t> PlaceGpuPods(int pool_index, int pod_count, int gpu_count) {
    Pool& pool = pools_[static_cast<size_t>(pool_index)];
    while (pool.gpu_cursor < pool.end && !rooms_[pool.gpu_cursor].Fits(pod_count, gpu_count)) {
      ++pool.gpu_cursor;
    }
    if (pool.gpu_cursor == pool.end) return std::nullopt;
    rooms_[pool.gpu_cursor].Take(pod_count, gpu_count);
    return pool.gpu_cursor;
  }

  std::optional<size_t> PlaceCpuPod(int pool_index) {
    Pool& pool = pools_[static_cast<size_t>(pool_index)];
    const size_t size = pool.end - pool.begin;
    for (size_t step = 0; step < size; ++step) {
      const size_t node = pool.begin + (pool.cpu_cursor - pool.begin + step) % size;
      if (!rooms_[node].Fits(1, 0)) continue;
      rooms_[node].Take(1, 0);
      pool.cpu_cursor = pool.begin + (node - pool.begin + 1) % size;
      return node;
    }
    return std::nullopt;
  }

  // The index of the next free device on `node` (devices are taken in order).
  int NextDevice(size_t node) const { return nodes_[node].gpus - rooms_[node].gpus; }

 private:
  struct Pool {
    size_t begin = 0;
    size_t end = 0;
    size_t gpu_cursor = 0;
    size_t cpu_cursor = 0;
  };
  const std::vector<PlannedNode>& nodes_;
  std::vector<NodeRoom> rooms_;
  std::vector<Pool> pools_;
};

// GPUs a queue holds, all and non-preemptible.
struct QueueUse {
  int64_t gpus = 0;
  int64_t non_preemptible_gpus = 0;
};

struct QueueChoice {
  size_t leaf = 0;
  std::string priority_class;
};

// A leaf queue drawn at random; if the unit would take it over its limit, the next leaf that
// has room (the first project of each department has no limit, so one always does). Unit `u`
// is non-preemptible when u % 7 == 0 and its queue's non-preemptible GPUs stay within quota.
QueueChoice ChooseQueue(const std::vector<const PlannedQueue*>& leaves, std::vector<QueueUse>& use,
                        size_t u, int64_t gpus, DeterministicRandom& random) {
  const size_t start = static_cast<size_t>(random.Below(static_cast<uint64_t>(leaves.size())));
  size_t q = start;
  for (size_t k = 0; k < leaves.size(); ++k) {
    q = (start + k) % leaves.size();
    if (!leaves[q]->gpu_limit || use[q].gpus + gpus <= *leaves[q]->gpu_limit) break;
  }
  const bool non_preemptible =
      u % 7 == 0 && use[q].non_preemptible_gpus + gpus <= leaves[q]->gpu_quota;
  use[q].gpus += gpus;
  if (non_preemptible) use[q].non_preemptible_gpus += gpus;
  return {q, non_preemptible ? "inference" : "train"};
}

std::string Where(const ClusterSpec& spec, int pool) {
  if (spec.node_pools == 1) return "the " + std::to_string(spec.nodes) + " nodes";
  return "node pool " + PoolName(pool, spec.node_pools);
}

Status DoesNotFit(const ClusterSpec& spec, int pool, const std::string& reason) {
  return Status::Error("--running-pods " + std::to_string(spec.running_pods) + " do not fit on " +
                       Where(spec, pool) + ": " + reason +
                       "; lower --running-pods or raise --nodes");
}

PlannedPod RunningPod(const std::string& name, const std::string& queue,
                      const std::string& priority_class, const std::string& pool) {
  PlannedPod pod;
  pod.namespace_name = kNamespace;
  pod.name = name;
  pod.queue = queue;
  pod.priority_class = priority_class;
  pod.pool = pool;
  pod.cpu_milli = kPodCpuMilli;
  pod.memory_bytes = kPodMemoryBytes;
  return pod;
}

}  // namespace

Status PlanRunningPods(const ClusterSpec& spec, DeterministicRandom& random, ClusterPlan& plan) {
  std::vector<const PlannedQueue*> leaves;
  for (const PlannedQueue& q : plan.queues) {
    if (!q.parent.empty()) leaves.push_back(&q);
  }
  std::vector<QueueUse> use(leaves.size());
  Packer packer(plan.nodes, spec.node_pools);
  std::vector<std::pair<size_t, int>> cpu_pods;  // (index in plan.pods, pool), placed last
  int pod_number = 0;
  int gang_number = 0;

  const std::vector<Unit> units = ShuffledUnits(spec.running_pods, random);
  for (size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    const int pool = static_cast<int>(u % static_cast<size_t>(spec.node_pools));
    const std::string pool_name = PoolName(pool, spec.node_pools);
    const auto [q, priority_class] = ChooseQueue(leaves, use, u, UnitGpus(unit), random);

    std::string gang;
    if (unit.kind == UnitKind::kGang) {
      gang = "gang-" + std::to_string(gang_number++);
      plan.pod_groups.push_back(
          {kNamespace, gang, leaves[q]->name, priority_class, pool_name, unit.pods});
    }
    // A pair is placed as one: both pods on one node, sharing one device.
    std::optional<size_t> pair_node;
    if (unit.kind == UnitKind::kSharedPair) {
      pair_node = packer.PlaceGpuPods(pool, 2, 1);
      if (!pair_node) return DoesNotFit(spec, pool, "out of GPUs");
    }
    const std::string pair_group = pair_node ? plan.nodes[*pair_node].name + "-gpu-" +
                                                   std::to_string(packer.NextDevice(*pair_node) - 1)
                                             : std::string();
    for (int k = 0; k < unit.pods; ++k) {
      PlannedPod pod = RunningPod(
          gang.empty() ? "r-" + std::to_string(pod_number) : gang + "-" + std::to_string(k),
          leaves[q]->name, priority_class, pool_name);
      ++pod_number;
      pod.pod_group = gang;
      if (unit.kind == UnitKind::kSharedPair) {
        pod.gpu_fraction = "0.5";
        pod.gpu_group = pair_group;
        pod.node = plan.nodes[*pair_node].name;
      } else if (unit.kind == UnitKind::kCpuOnly) {
        cpu_pods.emplace_back(plan.pods.size(), pool);
      } else {
        pod.gpus = unit.kind == UnitKind::kTwoGpus ? 2 : 1;
        const std::optional<size_t> node = packer.PlaceGpuPods(pool, 1, pod.gpus);
        if (!node) return DoesNotFit(spec, pool, "out of GPUs");
        pod.node = plan.nodes[*node].name;
      }
      plan.pods.push_back(std::move(pod));
    }
  }
  for (const auto& [index, pool] : cpu_pods) {
    const std::optional<size_t> node = packer.PlaceCpuPod(pool);
    if (!node) return DoesNotFit(spec, pool, "no room for another CPU-only pod");
    plan.pods[index].node = plan.nodes[*node].name;
  }
  return Status::Ok();
}

}  // namespace quotient::generate::plan
