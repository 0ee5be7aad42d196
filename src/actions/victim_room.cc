#include "actions/victim_room.h"

#include <algorithm>

namespace quotient::actions::solver {

bool NeedsGpuDevices(const core::Pod& pod) {
  return pod.gpu.kind == core::GpuSharing::Kind::kWhole || pod.gpu.is_shared();
}

Room FreeRoom(const framework::Session& session) {
  return {session.state().usable_gpu_room_milli(), session.state().usable_cpu_room_milli()};
}

Room Need(const framework::Session& session, const std::vector<Index>& pods, bool on_node) {
  Room r;
  for (Index p : pods) {
    const core::ShareVector q =
        session.QuotaOf(p, on_node ? session.state().pod(p).node : core::kNone);
    r.gpu_milli += q[core::ShareResource::kGpu].value();
    r.cpu_milli += q[core::ShareResource::kCpu].value();
  }
  return r;
}

NodeRoom::NodeRoom(const framework::Session& session, const std::vector<Index>& tasks)
    : session_(session) {
  for (Index t : tasks) {
    const int64_t g = session.QuotaOf(t, core::kNone)[core::ShareResource::kGpu].value();
    if (g <= 0 || !NeedsGpuDevices(session.pod(t))) continue;
    ++gpu_tasks_;
    smallest_ = smallest_ == 0 ? g : std::min(smallest_, g);
    largest_ = std::max(largest_, g);
  }
  if (gpu_tasks_ == 0) return;
  // Nodes with less room than the smallest pod add no slot and cannot take the largest.
  const framework::ClusterState::RoomOrder& order = session.state().gpu_room_order();
  for (auto it = order.lower_bound({smallest_, core::kNone}); it != order.end(); ++it) {
    if (!session.node(it->second).usable) continue;
    slots_ += SlotsIn(it->first);
    nodes_fitting_largest_ += it->first >= largest_ ? 1 : 0;
  }
}

int64_t NodeRoom::RoomOf(Index node) const {
  if (const auto it = changed_.find(node); it != changed_.end()) return it->second;
  return session_.node(node).usable ? session_.state().gpu_room_milli(node) : 0;
}

void NodeRoom::Add(const VictimUnit& unit, int64_t sign) {
  if (gpu_tasks_ == 0) return;
  for (Index pod : unit.pods) {
    const Index node = session_.state().pod(pod).node;
    if (node == core::kNone || !NeedsGpuDevices(session_.pod(pod))) continue;
    const int64_t before = RoomOf(node);
    const int64_t after =
        before + sign * session_.QuotaOf(pod, node)[core::ShareResource::kGpu].value();
    slots_ += SlotsIn(after) - SlotsIn(before);
    nodes_fitting_largest_ += (after >= largest_ ? 1 : 0) - (before >= largest_ ? 1 : 0);
    changed_[node] = after;
  }
}

}  // namespace quotient::actions::solver
