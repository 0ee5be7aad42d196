#include "actions/victim_room.h"

#include <algorithm>
#include <utility>

namespace quotient::actions::solver {

bool NeedsGpuDevices(const core::Pod& pod) {
  return pod.gpu.kind == core::GpuSharing::Kind::kWhole || pod.gpu.is_shared();
}

namespace {

// What a pod to be placed takes of GPU room, for the room checks. A gpu-memory pod whose request
// counts no GPU (no node's GPU memory is above KAI's placeholder) still takes a share of any
// device it lands on: the smallest it would take on a node that reports GPU memory.
int64_t GpuNeedMilli(const framework::Session& session, Index pod) {
  const int64_t quota = session.QuotaOf(pod, core::kNone)[core::ShareResource::kGpu].value();
  const core::GpuSharing& g = session.pod(pod).gpu;
  if (quota > 0 || g.kind != core::GpuSharing::Kind::kMemory) return quota;
  int64_t least = 0;
  for (const core::Node& node : session.snapshot().nodes) {
    if (!node.gpu_memory_mib) continue;
    const int64_t portion = std::min<int64_t>(
        1000, core::MemoryToPortionMilli(g.memory_mib, *node.gpu_memory_mib).value());
    least = least == 0 ? portion : std::min(least, portion);
  }
  return least * g.num_devices;
}

}  // namespace

Room FreeRoom(const framework::Session& session) {
  // GPU devices and MIG instances both: Need counts a MIG pod's instances as GPU units (KAI's
  // idle-GPUs filter counts both sides so, idle_gpus.go).
  const framework::ClusterState& state = session.state();
  return {state.usable_gpu_room_milli() + state.usable_mig_room_milli(),
          state.usable_cpu_room_milli()};
}

Room Need(const framework::Session& session, const std::vector<Index>& pods, bool on_node) {
  Room r;
  for (Index p : pods) {
    const core::ShareVector q =
        session.QuotaOf(p, on_node ? session.state().pod(p).node : core::kNone);
    r.gpu_milli += on_node ? q[core::ShareResource::kGpu].value() : GpuNeedMilli(session, p);
    r.cpu_milli += q[core::ShareResource::kCpu].value();
  }
  return r;
}

NodeRoom::NodeRoom(const framework::Session& session, const std::vector<Index>& tasks)
    : session_(session) {
  for (Index t : tasks) {
    const int64_t g = GpuNeedMilli(session, t);
    if (g <= 0 || !NeedsGpuDevices(session.pod(t))) continue;
    const int64_t c = session.pod(t).request.cpu_milli.value();
    smallest_.gpu_milli = gpu_tasks_ == 0 ? g : std::min(smallest_.gpu_milli, g);
    smallest_.cpu_milli = gpu_tasks_ == 0 ? c : std::min(smallest_.cpu_milli, c);
    if (std::pair(g, c) > std::pair(largest_.gpu_milli, largest_.cpu_milli)) largest_ = {g, c};
    ++gpu_tasks_;
  }
  if (gpu_tasks_ == 0) return;
  // Nodes with less GPU room than the smallest pod add no slot and cannot take the largest.
  const framework::ClusterState& state = session.state();
  const framework::ClusterState::RoomOrder& order = state.gpu_room_order();
  for (auto it = order.lower_bound({smallest_.gpu_milli, core::kNone}); it != order.end(); ++it) {
    if (!session.node(it->second).usable) continue;
    const Rooms room{it->first, state.cpu_room_milli(it->second)};
    slots_ += SlotsIn(room);
    nodes_fitting_largest_ += FitsLargest(room) ? 1 : 0;
  }
}

NodeRoom::Rooms NodeRoom::RoomOf(Index node) const {
  if (const auto it = changed_.find(node); it != changed_.end()) return it->second;
  if (!session_.node(node).usable) return {};
  return {session_.state().gpu_room_milli(node), session_.state().cpu_room_milli(node)};
}

int64_t NodeRoom::SlotsIn(const Rooms& room) const {
  if (room.gpu_milli <= 0) return 0;
  int64_t slots = room.gpu_milli / smallest_.gpu_milli;
  if (smallest_.cpu_milli > 0) {
    slots = std::min(slots, std::max<int64_t>(room.cpu_milli, 0) / smallest_.cpu_milli);
  }
  return slots;
}

void NodeRoom::Add(const VictimUnit& unit, int64_t sign) {
  if (gpu_tasks_ == 0) return;
  for (Index pod : unit.pods) {
    const Index node = session_.state().pod(pod).node;
    if (node == core::kNone) continue;
    const Rooms before = RoomOf(node);
    Rooms after = before;
    // An evicted pod's CPU is releasing on its node (CPU-only victims too); its GPU only where
    // it holds devices.
    after.cpu_milli += sign * session_.pod(pod).request.cpu_milli.value();
    if (NeedsGpuDevices(session_.pod(pod))) {
      after.gpu_milli += sign * session_.QuotaOf(pod, node)[core::ShareResource::kGpu].value();
    }
    slots_ += SlotsIn(after) - SlotsIn(before);
    nodes_fitting_largest_ += (FitsLargest(after) ? 1 : 0) - (FitsLargest(before) ? 1 : 0);
    changed_[node] = after;
  }
}

}  // namespace quotient::actions::solver
