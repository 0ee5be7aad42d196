#include "actions/placer.h"

#include <optional>

#include "actions/node_order.h"
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
    return value != "spread";
  };
  PlacementPolicy p;
  p.gpu_binpack = strategy("gpu");
  p.cpu_binpack = strategy("cpu");
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

bool Placer::Place(framework::Statement& statement, Index pod, FitErrors& errors,
                   const Options& options) {
  std::optional<NodeFit> best;
  NodeScore best_score;
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
      errors.Add("node(s) would take the queue over capacity (" + capacity.reason + ": " +
                 capacity.message + ")");
      continue;
    }
    const PlacementPolicy& policy = PolicyFor(session_.node(node).node_pool);
    NodeFit fit = FitResources(session_, pod, node, policy);
    if (fit.fit == Fit::kNone) {
      errors.Add(fit.reason);
      continue;
    }
    const NodeScore score = ScoreNode(session_, pod, node, fit, policy);
    // Nodes come in name order, so keeping the first of equals breaks ties by name.
    if (!best || BetterNode(score, best_score)) {
      best = std::move(fit);
      best_score = score;
    }
  }
  if (!best) return false;
  if (best->fit == Fit::kIdle && !options.pipeline_only) {
    statement.Allocate(pod, best->placement);
  } else {
    statement.Pipeline(pod, best->placement);
  }
  return true;
}

}  // namespace quotient::actions
