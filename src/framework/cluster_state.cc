#include "framework/cluster_state.h"

#include <algorithm>

namespace quotient::framework {

core::ResourceVector NonGpu(const core::ResourceVector& request) {
  core::ResourceVector v = request;
  v.gpu_milli = Quantity::Zero();
  v.gpu_memory_mib = Quantity::Zero();
  return v;
}

ClusterState::ClusterState(const core::Snapshot& snapshot,
                           std::chrono::seconds stuck_in_releasing_threshold)
    : snapshot_(&snapshot) {
  // Releasing pods give their resources back to pipelined ones; KAI's StuckInReleasing pods
  // (node_info.go, addTaskResources: only status Releasing feeds ReleasingVector) do not.
  const auto releasing = [&](const core::Pod& p) {
    return p.status == core::PodStatus::kReleasing &&
           !core::IsStuckInReleasing(p, snapshot.now, stuck_in_releasing_threshold);
  };
  pods_.resize(snapshot.pods.size());
  for (size_t i = 0; i < snapshot.pods.size(); ++i) {
    const core::Pod& p = snapshot.pods[i];
    pods_[i].status = p.status;
    pods_[i].node = p.node;
    pods_[i].gpu_groups = p.gpu_groups;
  }
  nodes_.resize(snapshot.nodes.size());
  for (size_t n = 0; n < snapshot.nodes.size(); ++n) {
    const core::Node& node = snapshot.nodes[n];
    NodeState& state = nodes_[n];
    state.idle = NonGpu(node.allocatable);
    state.pods = node.pods;
    for (Index i : node.pods) {
      const core::Pod& p = snapshot.pods[static_cast<size_t>(i)];
      const core::ResourceVector held = NonGpu(p.request);
      state.idle -= held;
      if (releasing(p)) state.releasing += held;
    }
    // Releasing pods' resources are not free yet, but will be: idle excludes them, releasing
    // counts them.
    state.devices.resize(node.gpus.size());
    for (size_t d = 0; d < node.gpus.size(); ++d) {
      const core::GpuDevice& gpu = node.gpus[d];
      DeviceState& dev = state.devices[d];
      dev.kind = gpu.state == core::GpuDevice::State::kIdle    ? DeviceState::Kind::kIdle
                 : gpu.state == core::GpuDevice::State::kWhole ? DeviceState::Kind::kWhole
                                                               : DeviceState::Kind::kShared;
      dev.group = gpu.group;
      dev.allocated_group = !gpu.holders.empty();
      for (const core::GpuDevice::Holder& h : gpu.holders) {
        ++dev.holders;
        (releasing(snapshot.pods[static_cast<size_t>(h.pod)]) ? dev.releasing_milli
                                                              : dev.used_milli) += h.portion_milli;
        PodState& holder = pods_[static_cast<size_t>(h.pod)];
        holder.devices.push_back(static_cast<int32_t>(d));
        holder.portion_milli = h.portion_milli;
      }
    }
  }
  mig_profiles_.resize(nodes_.size());
  mig_room_.assign(nodes_.size(), 0);
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (const auto& [name, amount] : snapshot.nodes[n].allocatable.scalars()) {
      if (std::optional<int64_t> units = core::MigGpuUnits(name)) {
        mig_profiles_[n].emplace_back(name, *units);
      }
    }
  }
  gpu_room_.assign(nodes_.size(), 0);
  cpu_room_.assign(nodes_.size(), 0);
  shared_in_use_.assign(nodes_.size(), false);
  filed_.assign(nodes_.size(), Filed{});
  unfiled_.assign(nodes_.size(), false);
  for (size_t n = 0; n < nodes_.size(); ++n) UpdateRoom(static_cast<Index>(n));
}

void ClusterState::UpdateRoom(Index node) {
  const size_t n = static_cast<size_t>(node);
  int64_t gpu = 0;
  for (const DeviceState& d : nodes_[n].devices)
    gpu += (d.free_milli() + d.releasing_milli).value();
  const int64_t cpu = (nodes_[n].idle.cpu_milli + nodes_[n].releasing.cpu_milli).value();
  int64_t mig = 0;
  for (const auto& [name, units] : mig_profiles_[n]) {
    mig += (nodes_[n].idle.Scalar(name) + nodes_[n].releasing.Scalar(name)).value() * units;
  }
  if (snapshot_->nodes[n].usable) {
    usable_gpu_room_ += gpu - gpu_room_[n];
    usable_cpu_room_ += cpu - cpu_room_[n];
    usable_mig_room_ += mig - mig_room_[n];
  }
  mig_room_[n] = mig;
  gpu_room_[n] = gpu;
  cpu_room_[n] = cpu;
  const bool shared =
      std::any_of(nodes_[n].devices.begin(), nodes_[n].devices.end(), [](const DeviceState& d) {
        return d.kind == DeviceState::Kind::kShared && !d.used_milli.is_zero();
      });
  if (shared != shared_in_use_[n]) {
    shared_in_use_count_ += shared ? 1 : -1;
    shared_in_use_[n] = shared;
  }
  if (!unfiled_[n]) {
    unfiled_[n] = true;
    unfiled_list_.push_back(node);
  }
}

void ClusterState::FileChangedNodes() const {
  for (Index node : unfiled_list_) {
    const size_t n = static_cast<size_t>(node);
    unfiled_[n] = false;
    bool releasing = !(nodes_[n].releasing == core::ResourceVector{});
    for (const DeviceState& d : nodes_[n].devices)
      releasing = releasing || !d.releasing_milli.is_zero();
    Filed& f = filed_[n];
    if (!f.in_orders || f.gpu_room != gpu_room_[n]) {
      if (f.in_orders) gpu_room_order_.erase({f.gpu_room, node});
      gpu_room_order_.insert({gpu_room_[n], node});
    }
    if (!f.in_orders || f.cpu_room != cpu_room_[n]) {
      if (f.in_orders) cpu_room_order_.erase({f.cpu_room, node});
      cpu_room_order_.insert({cpu_room_[n], node});
    }
    if (!f.in_orders || f.releasing != releasing) {
      if (releasing) {
        releasing_nodes_.insert(node);
      } else {
        releasing_nodes_.erase(node);
      }
    }
    f = {true, gpu_room_[n], cpu_room_[n], releasing};
  }
  unfiled_list_.clear();
}

const NodeOrderIndex& ClusterState::OrderIndex(NodeOrderIndex::Resource resource, bool binpack,
                                               const std::string& node_pool) {
  for (const auto& index : order_indices_) {
    if (index->resource() == resource && index->binpack() == binpack &&
        index->node_pool() == node_pool) {
      return *index;
    }
  }
  order_indices_.push_back(std::make_unique<NodeOrderIndex>(resource, binpack, node_pool));
  order_indices_.back()->Build(*snapshot_, nodes_);
  return *order_indices_.back();
}

void ClusterState::NodeChanged(Index node) {
  change_log_.push_back(node);
  UpdateRoom(node);
  for (const auto& index : order_indices_) index->Update(*snapshot_, nodes_, node);
}

}  // namespace quotient::framework
