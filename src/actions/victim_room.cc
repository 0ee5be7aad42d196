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

}  // namespace quotient::actions::solver
