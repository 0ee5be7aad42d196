#include "actions/placer.h"

#include <algorithm>
#include <optional>

#include "actions/node_order.h"
#include "actions/pod_shape.h"
#include "actions/predicates.h"
#include "fairshare/capacity.h"

namespace quotient::actions {
namespace {

using core::Index;

std::string Argument(const framework::SchedulerConfig& config, const std::string& plugin,
                     const std::string& key) {
  const framework::PluginOption* p = config.FindPlugin(plugin);
  if (p == nullptr) return "";
  auto it = p->arguments.find(key);
  return it == p->arguments.end() ? "" : it->second;
}

}  // namespace

PlacementPolicy PolicyFor(const framework::SchedulerConfig& config, const std::string& node_pool) {
  const auto strategy = [&](const std::string& resource) {
    std::string value;
    if (!node_pool.empty()) value = Argument(config, "nodeplacement", node_pool + "." + resource);
    if (value.empty()) value = Argument(config, "nodeplacement", resource);
    return value;
  };
  PlacementPolicy p;
  p.gpu_binpack = strategy("gpu") != "spread";
  p.gpu_fragmentation = strategy("gpu") == "fragmentation";
  p.cpu_binpack = strategy("cpu") != "spread";
  if (config.FindPlugin("gpuspread")) {
    p.pack_shared_gpus = false;
  } else if (config.FindPlugin("gpupack")) {
    p.pack_shared_gpus = true;
  } else {
    p.pack_shared_gpus = p.gpu_binpack;
  }
  return p;
}

const PlacementPolicy& Placer::PolicyFor(const std::string& node_pool) {
  auto it = policies_.find(node_pool);
  if (it == policies_.end()) {
    it = policies_.emplace(node_pool, actions::PolicyFor(session_.config(), node_pool)).first;
  }
  return it->second;
}

Placer::Placer(framework::Session& session)
    : session_(session), shortcuts_(!session.config().reference_search), unfit_(session) {
  for (const framework::Tier& tier : session.config().tiers) {
    for (const framework::PluginOption& plugin : tier.plugins) {
      if (plugin.name != "nodeplacement") continue;
      for (const auto& [key, value] : plugin.arguments) {
        learns_shapes_ = learns_shapes_ || value == "fragmentation";
      }
    }
  }
  if (!learns_shapes_) return;
  const core::Snapshot& s = session.snapshot();
  for (size_t i = 0; i < s.pods.size(); ++i) {
    if (s.pods[i].node != core::kNone && core::IsAllocatedStatus(s.pods[i].status)) {
      shapes_.Add(ShapeOf(static_cast<Index>(i)));
    }
  }
}

bool Placer::QuotaIsNodeIndependent(Index pod) {
  if (session_.pod(pod).gpu.kind != core::GpuSharing::Kind::kMemory) return true;
  if (!uniform_gpu_memory_) {
    // A gpu-memory pod's GPU quota is its memory over the node's GPU memory (the cluster's
    // smallest for nodes without the label): the same everywhere when every node says the same.
    const std::optional<int64_t> smallest = session_.snapshot().min_node_gpu_memory_mib;
    uniform_gpu_memory_ = std::all_of(
        session_.snapshot().nodes.begin(), session_.snapshot().nodes.end(),
        [&](const core::Node& n) { return !n.gpu_memory_mib || n.gpu_memory_mib == smallest; });
  }
  return *uniform_gpu_memory_;
}

bool Placer::PoolHasNodesWithoutGpus(const std::string& node_pool) {
  auto it = pools_without_gpus_.find(node_pool);
  if (it == pools_without_gpus_.end()) {
    bool any = false;
    for (size_t n = 0; n < session_.state().node_count(); ++n) {
      const Index node = static_cast<Index>(n);
      any =
          any || (session_.node(node).node_pool == node_pool &&
                  session_.state().node(node).devices.empty() && !session_.node(node).mig_enabled);
    }
    it = pools_without_gpus_.emplace(node_pool, any).first;
  }
  return it->second;
}

std::optional<Index> Placer::FindBestInOrder(Index pod, const Options& options) {
  const core::Pod& p = session_.pod(pod);
  const core::Job& job = session_.job(p.job);
  const PlacementPolicy& policy = PolicyFor(job.node_pool);
  // The most points ScoreNode can give this pod, and the least of the ordered resource a node
  // must have to earn the "fits on idle resources" part of them.
  int64_t max_points = 0;
  int64_t need = 0;
  switch (p.gpu.kind) {
    case core::GpuSharing::Kind::kWhole:
      max_points = 100;
      need = p.gpu.whole_devices * framework::kWholeGpuMilli;
      break;
    case core::GpuSharing::Kind::kFraction:
    case core::GpuSharing::Kind::kMemory:
      // A shared device can take it on a node without a whole free one: no node is skipped.
      max_points = 1100;
      need = 0;
      break;
    case core::GpuSharing::Kind::kNone:
      // gpusharingorder's points on a node with a shared GPU in use (no node without GPUs has
      // one, so the resourcetype points cannot come with them).
      max_points = session_.state().nodes_with_shared_gpu_in_use() > 0 ? 1100
                   : PoolHasNodesWithoutGpus(job.node_pool)            ? 110
                                                                       : 100;
      need = p.request.cpu_milli.value();
      break;
    case core::GpuSharing::Kind::kMig:
      return std::nullopt;  // MIG nodes have no devices to order by
  }
  const bool gpu_pod = p.gpu.kind != core::GpuSharing::Kind::kNone;
  const framework::NodeOrderIndex& index =
      session_.state().OrderIndex(gpu_pod ? framework::NodeOrderIndex::Resource::kGpu
                                          : framework::NodeOrderIndex::Resource::kCpu,
                                  gpu_pod ? policy.gpu_binpack : policy.cpu_binpack, job.node_pool);
  const bool per_node_quota = !QuotaIsNodeIndependent(pod);
  std::optional<bool> quota_fits;
  std::optional<Index> best;
  NodeScore best_score;
  // Scores the node; true when it is the best node for certain.
  const auto consider = [&](Index node) {
    if (node == options.exclude_node ||
        (options.only_nodes != nullptr && !allowed_[static_cast<size_t>(node)]) ||
        !MightFit(session_, pod, node) || !CheckPredicates(session_, pod, node).empty()) {
      return false;
    }
    if (!quota_fits || per_node_quota) {
      quota_fits = fairshare::CheckJobOverQueueCapacity(
                       session_.shares(), job.queue, session_.QuotaOf(pod, node), job.preemptible)
                       .fits;
    }
    if (!*quota_fits) return false;
    const NodeFit fit = FitResources(session_, pod, node, policy, /*with_placement=*/false);
    if (fit.fit == Fit::kNone) return false;
    const NodeScore score = ScoreNode(session_, pod, node, fit, policy);
    if (!best || BetterNode(score, best_score) ||
        (!BetterNode(best_score, score) && node < *best)) {
      best = node;
      best_score = score;
    }
    // Nodes come in the order of ScoreNode's placement term, then names, so the first node with
    // every point the pod can get beats every node after it.
    return score.points == max_points;
  };
  const auto start = index.FirstWithAtLeast(need);
  for (auto it = start; it != index.nodes().end(); ++it) {
    if (consider(it->node)) return best;
  }
  // No node earns every point. A node below the start has too little free to take the pod on
  // idle resources, so it can take it only on releasing ones. Those are the nodes with room
  // for it counting releasing resources (a sum that bounds nothing when a device is
  // over-committed: then every node with something releasing). Any order: `consider` breaks
  // ties by name itself.
  const framework::ClusterState& state = session_.state();
  if (gpu_pod && index.overcommitted()) {
    for (Index node : state.releasing_nodes()) {
      if (index.Before(node, start)) consider(node);
    }
    return best;
  }
  const framework::ClusterState::RoomOrder& rooms =
      gpu_pod ? state.gpu_room_order() : state.cpu_room_order();
  for (auto it = rooms.lower_bound({need, core::kNone}); it != rooms.end(); ++it) {
    if (index.Before(it->second, start)) consider(it->second);
  }
  return best;
}

bool Placer::FindBest(Index pod, const Options& options, NodeFit& best) {
  std::optional<Index> chosen;
  const core::Pod& p = session_.pod(pod);
  // CPU-only pods too: the CPU and memory they take can leave a node's GPUs unusable.
  const bool by_fragmentation = learns_shapes_ && p.gpu.kind != core::GpuSharing::Kind::kMig &&
                                PolicyFor(session_.job(p.job).node_pool).gpu_fragmentation &&
                                !shapes_.Typical().empty();
  if (by_fragmentation) {
    std::optional<int32_t> device;
    chosen = FindLeastFragmenting(pod, options, device);
    if (!chosen) return false;
    best = FitResources(session_, pod, *chosen, PolicyFor(session_.node(*chosen).node_pool),
                        /*with_placement=*/true, device);
    return true;
  }
  if (shortcuts_ && session_.pod(pod).gpu.kind != core::GpuSharing::Kind::kMig) {
    if (options.only_nodes != nullptr) {
      // Marked and unmarked per call: the list is short where the cluster is busy.
      allowed_.resize(session_.state().node_count(), false);
      for (Index node : *options.only_nodes) allowed_[static_cast<size_t>(node)] = true;
    }
    chosen = FindBestInOrder(pod, options);
    if (options.only_nodes != nullptr) {
      for (Index node : *options.only_nodes) allowed_[static_cast<size_t>(node)] = false;
    }
  } else {
    chosen = ScoreEveryNode(pod, options);
  }
  if (!chosen) return false;
  best = FitResources(session_, pod, *chosen, PolicyFor(session_.node(*chosen).node_pool));
  return true;
}

std::optional<Index> Placer::ScoreEveryNode(Index pod, const Options& options) {
  std::optional<Index> best;
  NodeScore best_score;
  const size_t nodes =
      options.only_nodes ? options.only_nodes->size() : session_.state().node_count();
  const core::Job& job = session_.job(session_.pod(pod).job);
  for (size_t n = 0; n < nodes; ++n) {
    const Index node = options.only_nodes ? (*options.only_nodes)[n] : static_cast<Index>(n);
    if (node == options.exclude_node) continue;
    if (shortcuts_ && !MightFit(session_, pod, node)) continue;
    if (!CheckPredicates(session_, pod, node).empty()) continue;
    const fairshare::CapacityVerdict capacity = fairshare::CheckJobOverQueueCapacity(
        session_.shares(), job.queue, session_.QuotaOf(pod, node), job.preemptible);
    if (!capacity.fits) continue;
    const PlacementPolicy& policy = PolicyFor(session_.node(node).node_pool);
    const NodeFit fit = FitResources(session_, pod, node, policy, /*with_placement=*/false);
    if (fit.fit == Fit::kNone) continue;
    const NodeScore score = ScoreNode(session_, pod, node, fit, policy);
    // Nodes come in name order, so keeping the first of equals breaks ties by name.
    if (!best || BetterNode(score, best_score)) {
      best = node;
      best_score = score;
    }
  }
  return best;
}

void Placer::ExplainNodeByNode(Index pod, const Options& options, FitErrors& errors) {
  const size_t nodes =
      options.only_nodes ? options.only_nodes->size() : session_.state().node_count();
  errors.set_nodes(nodes);
  const core::Job& job = session_.job(session_.pod(pod).job);
  for (size_t n = 0; n < nodes; ++n) {
    const Index node = options.only_nodes ? (*options.only_nodes)[n] : static_cast<Index>(n);
    if (node == options.exclude_node) {
      errors.Add("node(s) are the node the pod is moving from");
      continue;
    }
    if (std::string reason = CheckPredicates(session_, pod, node); !reason.empty()) {
      errors.Add(reason);
      continue;
    }
    // The queue check again for this pod alone, with its GPU quota as converted on this node
    // (gpu-memory differs per node), against the allocation reached so far.
    const fairshare::CapacityVerdict capacity = fairshare::CheckJobOverQueueCapacity(
        session_.shares(), job.queue, session_.QuotaOf(pod, node), job.preemptible);
    if (!capacity.fits) {
      errors.Add(QueueCapacityReason(capacity.reason, capacity.message));
      continue;
    }
    const NodeFit fit = FitResources(session_, pod, node, PolicyFor(session_.node(node).node_pool));
    if (fit.fit == Fit::kNone) errors.Add(fit.reason);
  }
}

bool Placer::Place(framework::Statement& statement, Index pod, FitErrors& errors,
                   const Options& options) {
  if (learns_shapes_) {
    // Once per pod: the victim solver asks again and again for the same one.
    learned_.resize(session_.snapshot().pods.size(), false);
    if (!learned_[static_cast<size_t>(pod)]) {
      learned_[static_cast<size_t>(pod)] = true;
      shapes_.Add(ShapeOf(pod));
    }
  }
  // Pods of one shape whose queue check is the same on every node share a cached explanation
  // of why nothing fits (UnfitCache); only the plain search, since options change which nodes
  // count.
  const bool plain = shortcuts_ && options.only_nodes == nullptr &&
                     options.exclude_node == core::kNone && QuotaIsNodeIndependent(pod);
  const std::string shape = plain ? PodShape(session_, pod) : std::string();
  if (!shape.empty() && unfit_.Has(shape)) {
    const UnfitCache::Entry& entry = unfit_.Get(shape, pod);
    if (!unfit_.MightPlace(entry, pod)) {
      unfit_.Render(entry, pod, errors);
      return false;
    }
  }
  NodeFit best;
  if (!FindBest(pod, options, best)) {
    if (!options.explain) return false;
    if (shape.empty()) {
      ExplainNodeByNode(pod, options, errors);
    } else {
      unfit_.Render(unfit_.Get(shape, pod), pod, errors);
    }
    return false;
  }
  if (best.fit == Fit::kIdle && !options.pipeline_only) {
    statement.Allocate(pod, best.placement);
  } else {
    if (best.fit == Fit::kIdle && best.placement.whole_gpus) {
      // Pipelined although it fits on free devices: it takes what releasing pods give back
      // first, as one that needs them does (KAI charges a Pipelined task to ReleasingVector and
      // leaves the idle GPUs to pods that can start now).
      best.placement.devices =
          WholeDevicesForPipeline(session_.state().node(best.placement.node),
                                  static_cast<int64_t>(best.placement.devices.size()));
    }
    statement.Pipeline(pod, best.placement);
  }
  return true;
}

}  // namespace quotient::actions
