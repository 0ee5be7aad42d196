// Cheap necessary conditions the victim solver checks before trying a scenario: is there, in
// the whole cluster and per node, enough room (free + releasing + what the accumulated victims
// hold) for the preemptor's pods? Internal to the solver.
#pragma once

#include <map>
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

// What is free or releasing now on usable nodes (GPU: devices and MIG instances, in GPU units).
Room FreeRoom(const framework::Session& session);
// What `pods` ask for (pending) or hold (on their node).
Room Need(const framework::Session& session, const std::vector<Index>& pods, bool on_node);

// Per-node room (free + releasing + what accumulated victims hold there) in GPU and CPU, and
// whether the preemptor's GPU pods could possibly fit: a necessary condition checked before any
// real try. A node can hold k of the pods only with k times the smallest GPU need and k times the
// smallest CPU need; the pod asking for the most GPU needs one node with room for its GPU and
// CPU both (GPU alone let searches try, and fail, on nodes whose CPU was taken).
// Built from the state's nodes ordered by GPU room, reading only nodes with room for the
// smallest pod (in a busy cluster a small part of it; every preemptor builds one), and kept
// incrementally: adding a victim costs O(its pods).
class NodeRoom {
 public:
  NodeRoom(const framework::Session& session, const std::vector<Index>& tasks);
  void Free(const VictimUnit& unit) { Add(unit, 1); }
  void Unfree(const VictimUnit& unit) { Add(unit, -1); }
  // How many of the smallest GPU pods the rooms could hold.
  int64_t Slots() const { return slots_; }
  bool CouldFit() const {
    if (gpu_tasks_ == 0) return true;
    return slots_ >= gpu_tasks_ && nodes_fitting_largest_ > 0;
  }

 private:
  struct Rooms {
    int64_t gpu_milli = 0;
    int64_t cpu_milli = 0;
  };
  Rooms RoomOf(Index node) const;
  int64_t SlotsIn(const Rooms& room) const;
  bool FitsLargest(const Rooms& room) const {
    return room.gpu_milli >= largest_.gpu_milli && room.cpu_milli >= largest_.cpu_milli;
  }
  void Add(const VictimUnit& unit, int64_t sign);

  const framework::Session& session_;
  std::map<Index, Rooms> changed_;  // by node: room where victims were added
  int64_t gpu_tasks_ = 0;
  Rooms smallest_;  // the least GPU and the least CPU any GPU pod asks for
  Rooms largest_;   // the GPU pod asking for the most GPU (then CPU): its GPU and CPU
  int64_t slots_ = 0;
  int64_t nodes_fitting_largest_ = 0;
};

}  // namespace quotient::actions::solver
