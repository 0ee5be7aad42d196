// The Placer's `fragmentation` GPU strategy: every node that fits is scored by how much it adds
// to the fragmentation the typical request shapes see (fragmentation.h), and a fractional pod
// is tried on each GPU of the node that could take it.
#include <algorithm>
#include <string>

#include "actions/node_order.h"
#include "actions/placer.h"
#include "actions/pod_shape.h"
#include "actions/predicates.h"
#include "core/label_selectors.h"
#include "fairshare/capacity.h"

namespace quotient::actions {

using core::Index;

namespace {

using framework::DeviceState;

// Fills `room` (reused across nodes, so that scoring a node allocates nothing).
void RoomOf(const framework::NodeState& state, uint64_t unreachable, FragmentRoom& room) {
  room.unreachable = unreachable;
  room.cpu_milli = state.idle.cpu_milli.value();
  room.memory_bytes = state.idle.memory_bytes.value();
  room.gpu_free_milli.clear();
  for (const DeviceState& d : state.devices) {
    room.gpu_free_milli.push_back(std::max<int64_t>(0, d.free_milli().value()));
  }
}

// A device a one-device shared pod may take now: a group in use with room, or a free device.
bool TakesShareNow(const DeviceState& d, int64_t portion) {
  const bool existing = d.kind == DeviceState::Kind::kShared && !d.group.empty() && d.holders > 0;
  const bool fresh = d.free_milli().value() == framework::kWholeGpuMilli;
  return (existing || fresh) && portion <= d.free_milli().value();
}

// The node constraints of a pod (selector, required node affinity) as text: pods with equal
// text may go on the same nodes.
std::string ReachKey(const core::Pod& pod) {
  std::string key;
  for (const auto& [k, v] : pod.node_selector) key += k + '=' + v + ';';
  for (const core::NodeSelectorTerm& term : pod.affinity.required_node_terms) {
    key += '|';
    for (const auto* list : {&term.match_expressions, &term.match_fields}) {
      for (const core::SelectorRequirement& r : *list) {
        key += r.key + ' ' + r.op;
        for (const std::string& v : r.values) key += ' ' + v;
        key += ';';
      }
      key += '/';
    }
  }
  return key;
}

}  // namespace

int32_t Placer::ReachOf(Index pod) {
  const core::Pod& p = session_.pod(pod);
  if (p.node_selector.empty() && p.affinity.required_node_terms.empty()) return 0;
  const auto [it, added] =
      reach_ids_.emplace(ReachKey(p), static_cast<int32_t>(reach_examples_.size() + 1));
  if (added) reach_examples_.push_back(pod);
  return it->second <= kMaxReaches ? it->second : 0;
}

uint64_t Placer::UnreachableOn(Index node) {
  const size_t n = static_cast<size_t>(node);
  if (unreachable_.size() <= n) {
    unreachable_.resize(session_.state().node_count(), 0);
    reaches_checked_.resize(session_.state().node_count(), 0);
  }
  const size_t known = std::min<size_t>(reach_examples_.size(), kMaxReaches);
  const core::Node& node_object = session_.node(node);
  for (size_t r = reaches_checked_[n]; r < known; ++r) {
    const core::Pod& example = session_.pod(reach_examples_[r]);
    if (!core::MatchesLabels(example.node_selector, node_object.labels) ||
        !MatchesNodeAffinity(node_object, example.affinity)) {
      unreachable_[n] |= uint64_t{1} << (r + 1);
    }
  }
  reaches_checked_[n] = known;
  return unreachable_[n];
}

RequestShape Placer::ShapeOf(Index pod) {
  const core::Pod& p = session_.pod(pod);
  RequestShape shape;
  shape.cpu_milli = p.request.cpu_milli.value();
  // Memory is left out of the shape, as FGD does: it rarely binds on GPU nodes, and with it the
  // same GPU request splits into many rare shapes.
  shape.memory_bytes = 0;
  switch (p.gpu.kind) {
    case core::GpuSharing::Kind::kWhole:
      shape.gpus = static_cast<int32_t>(p.gpu.whole_devices);
      shape.gpu_milli_each = framework::kWholeGpuMilli;
      break;
    case core::GpuSharing::Kind::kFraction:
      shape.gpus = static_cast<int32_t>(p.gpu.num_devices);
      shape.gpu_milli_each = p.gpu.portion_milli.value();
      break;
    default:  // gpu-memory portions depend on the node; MIG has no devices to fragment
      break;
  }
  // Where a GPU shape may go: what it cannot reach it cannot use (CPU-only shapes only care
  // whether the CPU they need is left).
  if (shape.gpus > 0) shape.reach = ReachOf(pod);
  return shape;
}

namespace {

// A necessary condition for FitResources' fits_idle, cheap enough to ask of every node: the idle
// CPU, memory and pod slots hold the request (MightFit has checked the GPUs with releasing room
// counted, so it is an over-estimate: FitResources has the last word).
bool MayFitIdle(const core::Pod& p, const framework::NodeState& state) {
  return p.request.cpu_milli <= state.idle.cpu_milli &&
         p.request.memory_bytes <= state.idle.memory_bytes &&
         p.request.pods_milli <= state.idle.pods_milli;
}

// Whether the fragmentation a pod adds on idle resources follows from the node's room alone
// (AddedOnIdle): not for several shares on one pod, whose devices follow the policy's order.
bool ScoredByRoom(const core::Pod& p) {
  return p.gpu.kind == core::GpuSharing::Kind::kNone ||
         p.gpu.kind == core::GpuSharing::Kind::kWhole ||
         (p.gpu.is_shared() && p.gpu.num_devices == 1);
}

}  // namespace

int64_t Placer::AddedOnIdle(Index pod, Index node, int64_t before, std::optional<int32_t>& device) {
  const core::Pod& p = session_.pod(pod);
  const framework::NodeState& state = session_.state().node(node);
  FragmentRoom& room = room_;
  const ShapeCounts& typical = shapes_.Typical();
  const uint64_t version = shapes_.version();
  device.reset();
  if (p.gpu.is_shared() && p.gpu.num_devices == 1) {
    // Each device that could take the share, the one that fragments least (lowest index first
    // among equals; devices with the same free room give the same answer, so each free amount
    // is tried once).
    const int64_t portion = PortionOn(p, session_.node(node)).value();
    std::optional<int64_t> least;
    for (size_t d = 0; d < state.devices.size(); ++d) {
      if (!TakesShareNow(state.devices[d], portion)) continue;
      const int64_t free = room.gpu_free_milli[d];
      bool seen = false;
      for (size_t e = 0; e < d && !seen; ++e) {
        seen = room.gpu_free_milli[e] == free && TakesShareNow(state.devices[e], portion);
      }
      if (seen) continue;
      room.gpu_free_milli[d] -= portion;
      const int64_t added = memo_.Of(room, typical, version) - before;
      room.gpu_free_milli[d] += portion;
      if (!least || added < *least) {
        least = added;
        device = static_cast<int32_t>(d);
      }
    }
    return least.value_or(kNoRoom);
  }
  // Whole GPUs take free devices (which ones does not change the measure); CPU-only pods take
  // none.
  int64_t taken = 0;
  for (int64_t& free : room.gpu_free_milli) {
    if (taken == p.gpu.whole_devices) break;
    if (free != framework::kWholeGpuMilli) continue;
    free = 0;
    ++taken;
  }
  return memo_.Of(room, typical, version) - before;
}

int64_t Placer::LoadRoom(Index pod, Index node) {
  const core::Pod& p = session_.pod(pod);
  RoomOf(session_.state().node(node), UnreachableOn(node), room_);
  const int64_t before = memo_.Of(room_, shapes_.Typical(), shapes_.version());
  room_.cpu_milli -= p.request.cpu_milli.value();
  room_.memory_bytes -= p.request.memory_bytes.value();
  return before;
}

Placer::FragmentScore Placer::OptimisticScore(Index pod, Index node) {
  FragmentScore score;
  if (!MightFit(session_, pod, node)) return score;
  const core::Pod& p = session_.pod(pod);
  const framework::NodeState& state = session_.state().node(node);
  const bool by_room = ScoredByRoom(p);
  score.kind = FragmentScore::Kind::kFullCheck;
  score.may_be_idle = !by_room;
  if (!by_room || !MayFitIdle(p, state)) return score;
  const int64_t before = LoadRoom(pod, node);
  score.added = AddedOnIdle(pod, node, before, score.device);
  // kNoRoom: no device takes the share now; the node may still take it on releasing room.
  if (score.added != kNoRoom) score.kind = FragmentScore::Kind::kIdle;
  return score;
}

Placer::FragmentEntry& Placer::FragmentEntryFor(Index pod) {
  const std::vector<Index>& log = session_.state().change_log();
  const size_t nodes = session_.state().node_count();
  shapes_.Typical();  // brought up to date first: its version keys the entry
  const uint64_t version = shapes_.version();
  if (fragment_entries_.size() > kMaxFragmentEntries) fragment_entries_.clear();
  FragmentEntry& entry = fragment_entries_[PodShape(session_, pod)];
  const auto file = [&](Index node) {
    const size_t n = static_cast<size_t>(node);
    FragmentScore& score = entry.by_node[n];
    if (score.kind == FragmentScore::Kind::kIdle) entry.order.erase({score.added, node});
    if (score.kind == FragmentScore::Kind::kFullCheck) entry.full_check.erase(node);
    score = OptimisticScore(pod, node);
    if (score.kind == FragmentScore::Kind::kIdle) entry.order.insert({score.added, node});
    if (score.kind == FragmentScore::Kind::kFullCheck) entry.full_check.insert(node);
  };
  // Redoing more changed nodes than half the cluster costs more than starting over.
  if (entry.by_node.size() != nodes || entry.typical_version != version ||
      log.size() - entry.log_position > nodes / 2) {
    entry.by_node.assign(nodes, FragmentScore{});
    entry.order.clear();
    entry.full_check.clear();
    entry.typical_version = version;
    for (size_t n = 0; n < nodes; ++n) file(static_cast<Index>(n));
  } else {
    for (size_t i = entry.log_position; i < log.size(); ++i) file(log[i]);
  }
  entry.log_position = log.size();
  return entry;
}

std::optional<Index> Placer::FindLeastFragmenting(Index pod, const Options& options,
                                                  std::optional<int32_t>& device) {
  const core::Pod& p = session_.pod(pod);
  const core::Job& job = session_.job(p.job);
  const ShapeCounts& typical = shapes_.Typical();
  const uint64_t version = shapes_.version();
  struct Best {
    Index node = core::kNone;
    bool idle = false;
    int64_t added = 0;  // fragmentation added
    std::optional<int32_t> device;
  };
  // Among nodes fitting on idle resources first, the least added, then the first by name (node
  // indices are in name order). Equal added fragmentation goes to the first node by name, not
  // to bin-pack's fullest node: packing by the free amount of one resource among equals
  // concentrates CPU-heavy pods on the same nodes and strands their GPUs (docs/placement.md).
  const auto better = [](const Best& a, const Best& b) {
    if (a.idle != b.idle) return a.idle;
    return a.added != b.added ? a.added < b.added : a.node < b.node;
  };
  // Whether the pod may go on the node at all: asked only of a node that would beat the best so
  // far, since a node's fragmentation is kept per pod shape and these checks are not.
  const auto admits = [&](Index node, NodeFit& fit) {
    if (node == options.exclude_node) return false;
    if (!CheckPredicates(session_, pod, node).empty()) return false;
    if (!fairshare::CheckJobOverQueueCapacity(session_.shares(), job.queue,
                                              session_.QuotaOf(pod, node), job.preemptible)
             .fits) {
      return false;
    }
    fit = FitResources(session_, pod, node, PolicyFor(session_.node(node).node_pool),
                       /*with_placement=*/false);
    return fit.fit != Fit::kNone;
  };
  // The added fragmentation where the pod fits only on releasing resources, or where its
  // devices depend on the policy's order: the devices FitResources chooses.
  const auto by_policy = [&](Index node, const NodeFit& fit) {
    const int64_t before = LoadRoom(pod, node);
    const NodeFit placed =
        FitResources(session_, pod, node, PolicyFor(session_.node(node).node_pool),
                     /*with_placement=*/true);
    for (int32_t d : placed.placement.devices) {
      int64_t& free = room_.gpu_free_milli[static_cast<size_t>(d)];
      free = std::max<int64_t>(0, free - placed.placement.portion_milli.value());
    }
    return Best{node, fit.fits_idle, memo_.Of(room_, typical, version) - before, std::nullopt};
  };
  std::optional<Best> best;
  if (!shortcuts_) {
    // The straightforward search the kept scores must agree with: every check on every node.
    const size_t nodes =
        options.only_nodes ? options.only_nodes->size() : session_.state().node_count();
    for (size_t n = 0; n < nodes; ++n) {
      const Index node = options.only_nodes ? (*options.only_nodes)[n] : static_cast<Index>(n);
      NodeFit fit;
      if (!admits(node, fit)) continue;
      Best real;
      if (fit.fits_idle && ScoredByRoom(p)) {
        const int64_t before = LoadRoom(pod, node);
        std::optional<int32_t> on_device;
        const int64_t added = AddedOnIdle(pod, node, before, on_device);
        if (added == kNoRoom) continue;
        real = {node, true, added, on_device};
      } else {
        real = by_policy(node, fit);
      }
      if (!best || better(real, *best)) best = real;
    }
  } else {
    const FragmentEntry& entry = FragmentEntryFor(pod);
    // A node scored on idle resources: its real score is that, or (fitting only on releasing
    // room) worse.
    const auto consider_idle = [&](Index node) {
      const FragmentScore& score = entry.by_node[static_cast<size_t>(node)];
      const Best optimistic{node, true, score.added, score.device};
      if (best && !better(optimistic, *best)) return;
      NodeFit fit;
      if (!admits(node, fit)) return;
      const Best real = fit.fits_idle ? optimistic : by_policy(node, fit);
      if (!best || better(real, *best)) best = real;
    };
    // A node that could take the pod only on releasing room, or needs FitResources' devices.
    const auto consider_full = [&](Index node) {
      const FragmentScore& score = entry.by_node[static_cast<size_t>(node)];
      if (best && best->idle && !score.may_be_idle) return;
      NodeFit fit;
      if (!admits(node, fit)) return;
      // Fits on idle resources, yet no device takes the share now: not for this pod.
      if (fit.fits_idle && score.added == kNoRoom) return;
      const Best real = by_policy(node, fit);
      if (!best || better(real, *best)) best = real;
    };
    if (options.only_nodes != nullptr) {
      for (Index node : *options.only_nodes) {
        if (entry.by_node[static_cast<size_t>(node)].kind == FragmentScore::Kind::kIdle) {
          consider_idle(node);
        }
      }
      for (Index node : *options.only_nodes) {
        if (entry.by_node[static_cast<size_t>(node)].kind == FragmentScore::Kind::kFullCheck) {
          consider_full(node);
        }
      }
    } else {
      // Best first: once a node's optimistic score cannot beat the best found, none after it
      // can.
      for (const auto& [added, node] : entry.order) {
        if (best && !better(Best{node, true, added, std::nullopt}, *best)) break;
        consider_idle(node);
      }
      for (Index node : entry.full_check) consider_full(node);
    }
  }
  if (!best) return std::nullopt;
  device = best->device;
  return best->node;
}

}  // namespace quotient::actions
