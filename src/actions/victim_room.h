// Cheap necessary conditions the victim solver checks before trying a scenario: is there, in
// the whole cluster and per node, enough room (free + releasing + what the accumulated victims
// hold) for the preemptor's pods? Internal to the solver.
#pragma once

#include <vector>

#include "actions/victim_solver.h"

namespace quotient::actions::solver {

using core::Index;

// Whether the pod needs GPU devices (whole, fraction or gpu-memory; MIG instances are plain
// resources on their node).
bool NeedsGpuDevices(const core::Pod& pod);

// Cluster-wide room, per resource the solver checks.
struct Room {
  int64_t gpu_milli = 0;
  int64_t cpu_milli = 0;
};

// What is free or releasing now on usable nodes.
Room FreeRoom(const framework::Session& session);
// What `pods` ask for (pending) or hold (on their node).
Room Need(const framework::Session& session, const std::vector<Index>& pods, bool on_node);

// Per-node GPU room (free + releasing + what accumulated victims hold there), and whether the
// preemptor's GPU pods could possibly fit: a necessary condition checked before any real try.
// Counts are kept incrementally, so adding a victim costs O(its pods).
class NodeRoom {
 public:
  NodeRoom(const framework::Session& session, const std::vector<Index>& tasks)
      : session_(session), room_(session.state().node_count(), 0) {
    for (Index t : tasks) {
      const int64_t g = session.QuotaOf(t, core::kNone)[core::ShareResource::kGpu].value();
      if (g <= 0 || !NeedsGpuDevices(session.pod(t))) continue;
      ++gpu_tasks_;
      smallest_ = smallest_ == 0 ? g : std::min(smallest_, g);
      largest_ = std::max(largest_, g);
    }
    for (size_t n = 0; n < room_.size(); ++n) {
      if (!session.node(static_cast<Index>(n)).usable) continue;
      Set(n, session.state().gpu_room_milli(static_cast<Index>(n)));
    }
  }
  void Free(const VictimUnit& unit) { Add(unit, 1); }
  void Unfree(const VictimUnit& unit) { Add(unit, -1); }
  // How many of the smallest GPU pods the rooms could hold.
  int64_t Slots() const { return slots_; }
  bool CouldFit() const {
    if (gpu_tasks_ == 0) return true;
    return slots_ >= gpu_tasks_ && nodes_fitting_largest_ > 0;
  }

 private:
  void Set(size_t n, int64_t room) {
    if (gpu_tasks_ > 0) {
      slots_ += room / smallest_ - room_[n] / smallest_;
      nodes_fitting_largest_ += (room >= largest_) - (room_[n] >= largest_);
    }
    room_[n] = room;
  }
  void Add(const VictimUnit& unit, int64_t sign) {
    for (Index pod : unit.pods) {
      const Index node = session_.state().pod(pod).node;
      if (node == core::kNone || !NeedsGpuDevices(session_.pod(pod))) continue;
      const size_t n = static_cast<size_t>(node);
      Set(n, room_[n] + sign * session_.QuotaOf(pod, node)[core::ShareResource::kGpu].value());
    }
  }

  const framework::Session& session_;
  std::vector<int64_t> room_;
  int64_t gpu_tasks_ = 0;
  int64_t smallest_ = 0;
  int64_t largest_ = 0;
  int64_t slots_ = 0;
  int64_t nodes_fitting_largest_ = 0;
};

}  // namespace quotient::actions::solver
