// Placer: puts one pod on its best node through a statement — the step allocate, reclaim,
// preempt and consolidation share (docs/design/allocate.md, "Placing one pod").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actions/fit_errors.h"
#include "actions/fragmentation.h"
#include "actions/node_fit.h"
#include "actions/unfit_cache.h"
#include "framework/statement.h"

namespace quotient::actions {

class Placer {
 public:
  explicit Placer(framework::Session& session);

  struct Options {
    bool pipeline_only = false;              // record a Pipeline even where idle resources suffice
    core::Index exclude_node = core::kNone;  // a victim being moved must leave its node
    // When set, only these nodes (in name order) are considered: a caller that knows the others
    // cannot fit (the victim solver) saves scanning them. Fit errors then cover only these.
    const std::vector<core::Index>* only_nodes = nullptr;
    // False when the caller does not read the fit errors (the victim solver's tries): a failed
    // placement then costs no explanation.
    bool explain = true;
  };

  // Places `pod` on the best node that passes the predicates, the per-node queue check and the
  // resource fit: Allocate on idle resources, else Pipeline onto releasing ones. Returns false
  // and fills `errors` when no node fits.
  bool Place(framework::Statement& statement, core::Index pod, FitErrors& errors,
             const Options& options);
  bool Place(framework::Statement& statement, core::Index pod, FitErrors& errors) {
    return Place(statement, pod, errors, Options{});
  }

 private:
  // The search is split so that the common cases cost little (docs/design/performance.md):
  // FindBest finds the best node building no reason text, visiting the nodes in the order the
  // placement strategy prefers them and stopping at the first that earns every score point;
  // only when no node fits are the reasons gathered, from the UnfitCache where the pod's shape
  // allows, else node by node.
  bool FindBest(core::Index pod, const Options& options, NodeFit& best);
  // Visits the nodes of the pod's pool in the order the placement strategy prefers them
  // (framework::NodeOrderIndex), starting where a node can first fit on idle resources, and
  // stops at the first that earns every score point the pod can get: no later node can beat it.
  std::optional<core::Index> FindBestInOrder(core::Index pod, const Options& options);
  // Every node in name order (the reference search and MIG pods).
  std::optional<core::Index> ScoreEveryNode(core::Index pod, const Options& options);
  // The `fragmentation` strategy (placer_fragmentation.cc): of the nodes that fit, those that
  // fit on idle resources first, the one whose fragmentation for the typical shapes grows least,
  // then the name. Sets `device` to the shared GPU a one-device
  // fractional pod should take there. nullopt when nothing fits or no shapes are known yet.
  std::optional<core::Index> FindLeastFragmenting(core::Index pod, const Options& options,
                                                  std::optional<int32_t>& device);
  // The request shape of `pod` as the fragmentation measure sees it.
  RequestShape ShapeOf(core::Index pod) const;
  void ExplainNodeByNode(core::Index pod, const Options& options, FitErrors& errors);
  bool PoolHasNodesWithoutGpus(const std::string& node_pool);
  // Whether the pod's queue check gives the same verdict on every node (all but gpu-memory pods
  // in a cluster whose GPUs differ in memory).
  bool QuotaIsNodeIndependent(core::Index pod);
  const PlacementPolicy& PolicyFor(const std::string& node_pool);

  framework::Session& session_;
  const bool shortcuts_;  // false under SchedulerConfig::reference_search
  UnfitCache unfit_;
  std::map<std::string, PlacementPolicy> policies_;  // by node pool
  std::map<std::string, bool> pools_without_gpus_;   // by node pool
  std::optional<bool> uniform_gpu_memory_;           // every node reports the same GPU memory
  std::vector<bool> allowed_;  // by node: in Options::only_nodes (FindBestInOrder's filter)
  // Shapes seen, when a pool places GPUs by fragmentation: the pods holding resources when the
  // session opened, and every pod asked to be placed since.
  bool learns_shapes_ = false;
  ShapeMix shapes_;
  std::vector<bool> learned_;  // by pod: its shape is in shapes_
  FragmentationMemo memo_;
};

// The placement strategy for nodes of `node_pool`, from the nodeplacement plugin's arguments
// (`gpu`, `cpu`: binpack | spread; `<pool>.gpu`, `<pool>.cpu` override them for one pool) and the
// gpupack / gpuspread plugins (default: follow the GPU strategy).
PlacementPolicy PolicyFor(const framework::SchedulerConfig& config, const std::string& node_pool);

}  // namespace quotient::actions
