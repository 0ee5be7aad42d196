#include "actions/victim_room.h"

#include <algorithm>

namespace quotient::actions::solver {

bool NeedsGpuDevices(const core::Pod& pod) {
  return pod.gpu.kind == core::GpuSharing::Kind::kWhole || pod.gpu.is_shared();
}

Room FreeRoom(const framework::Session& session) {
  Room r;
  for (size_t n = 0; n < session.state().node_count(); ++n) {
    const framework::NodeState& node = session.state().node(static_cast<Index>(n));
    if (!session.node(static_cast<Index>(n)).usable) continue;
    for (const framework::DeviceState& d : node.devices) {
      r.gpu_milli += (d.free_milli() + d.releasing_milli).value();
    }
    r.cpu_milli += (node.idle.cpu_milli + node.releasing.cpu_milli).value();
  }
  return r;
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
