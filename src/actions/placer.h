// Placer: puts one pod on its best node through a statement — the step allocate, reclaim,
// preempt and consolidation share (docs/design/allocate.md, "Placing one pod").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
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
  // The fragmentation `pod` adds to `node` placed on idle resources, given the node's room less
  // the pod's CPU and memory in room_ and its fragmentation before the pod (`before`): for a
  // one-device share, on the device where it adds least (`device`). kNoRoom when no device can
  // take it. Leaves room_ changed.
  static constexpr int64_t kNoRoom = INT64_MAX;
  // Fills room_ with `node`'s room less the pod's CPU and memory; returns the node's
  // fragmentation before the pod.
  int64_t LoadRoom(core::Index pod, core::Index node);
  int64_t AddedOnIdle(core::Index pod, core::Index node, int64_t before,
                      std::optional<int32_t>& device);
  // A node's score for pods of one shape, as far as it can be known without the predicates and
  // the queue check: kIdle when the pod would fit on idle resources by CPU, memory and device
  // room, with the fragmentation it adds (an upper bound on the real score: on releasing room
  // it only gets worse); kFullCheck when only FitResources can tell (releasing room, several
  // shares); kNone when MightFit says no.
  struct FragmentScore {
    enum class Kind : uint8_t { kNone, kIdle, kFullCheck };
    Kind kind = Kind::kNone;
    bool may_be_idle = false;  // kFullCheck: FitResources may still find idle room
    int64_t added = 0;
    std::optional<int32_t> device;
  };
  FragmentScore OptimisticScore(core::Index pod, core::Index node);
  // Per pod shape (PodShape), every node's score and the kIdle nodes best first, brought up to
  // date by redoing the nodes a statement changed since (ClusterState::change_log), as
  // UnfitCache does; built afresh when the typical shapes change.
  struct FragmentEntry {
    size_t log_position = 0;
    uint64_t typical_version = 0;
    std::vector<FragmentScore> by_node;
    std::set<std::pair<int64_t, core::Index>> order;  // kIdle nodes by (added, node)
    std::set<core::Index> full_check;                 // kFullCheck nodes
  };
  static constexpr size_t kMaxFragmentEntries = 256;  // shapes kept; beyond, all are dropped
  FragmentEntry& FragmentEntryFor(core::Index pod);
  // The request shape of `pod` as the fragmentation measure sees it.
  RequestShape ShapeOf(core::Index pod);
  // The shape's reach (RequestShape::reach): an id per distinct node constraint, 0 for none.
  int32_t ReachOf(core::Index pod);
  // The reaches that may not go on `node`, as RequestShape::reach bits.
  uint64_t UnreachableOn(core::Index node);
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
  FragmentRoom room_;  // reused: scoring a node allocates nothing
  std::map<std::string, FragmentEntry> fragment_entries_;  // by PodShape
  std::map<std::string, int32_t> reach_ids_;               // by ReachKey
  std::vector<core::Index> reach_examples_;                // a pod of each reach, by id - 1
  std::vector<uint64_t> unreachable_;                      // by node: UnreachableOn, cached
  std::vector<size_t> reaches_checked_;  // by node: reaches already in unreachable_
};

// The placement strategy for nodes of `node_pool`, from the nodeplacement plugin's arguments
// (`gpu`, `cpu`: binpack | spread; `<pool>.gpu`, `<pool>.cpu` override them for one pool) and the
// gpupack / gpuspread plugins (default: follow the GPU strategy).
PlacementPolicy PolicyFor(const framework::SchedulerConfig& config, const std::string& node_pool);

}  // namespace quotient::actions
