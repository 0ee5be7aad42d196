// ClusterState: the mutable overlay one session works on, over the immutable snapshot.
//
// It tracks, per node, what is free now (`idle`), what running pods are giving back (`releasing`)
// and each GPU device's portions; per pod, its status, node and devices. Only a Statement changes
// it, so every change can be undone. GPUs are tracked per device (never in `idle`): a whole-GPU
// pod holds devices outright; fractional pods share a device named by its GPU group, and a
// device's portions never sum above one GPU.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/resources.h"
#include "core/snapshot.h"
#include "framework/node_order_index.h"

namespace quotient::framework {

using core::Index;
using core::kNone;
using core::Quantity;

inline constexpr int64_t kWholeGpuMilli = 1000;

struct DeviceState {
  enum class Kind { kIdle, kWhole, kShared };

  Kind kind = Kind::kIdle;
  std::string group;         // kShared: the GPU group name
  Quantity used_milli;       // held by pods that are not releasing (virtual ones included)
  Quantity releasing_milli;  // held by releasing pods and not yet claimed by pipelined ones
  int32_t holders = 0;       // pods holding a share of this device, in any state
  // kShared: a pod was allocated a share of the group (or held one when the session opened);
  // a group only pipelined pods ever joined has started on nothing (KAI's group key in
  // AllocatedSharedGPUsMemory, which stays once made).
  bool allocated_group = false;

  Quantity free_milli() const { return Quantity(kWholeGpuMilli) - used_milli - releasing_milli; }
};

struct NodeState {
  core::ResourceVector idle;       // free now; GPUs are tracked in `devices`
  core::ResourceVector releasing;  // being given back by releasing pods, not yet claimed
  std::vector<DeviceState> devices;
  std::vector<Index> pods;  // pods holding resources here in any active state, virtual included

  // KAI's NonAllocatedResource for GPUs, in milli-GPUs: the whole devices no pod that is not
  // releasing holds a share of (idle or releasing). A device is allocated from its first
  // fraction on (gpu_sharing_node_info.go moves it out of Idle). The node order's GPU term.
  int64_t NonAllocatedGpuMilli() const {
    int64_t out = 0;
    for (const DeviceState& d : devices) {
      if (d.used_milli.is_zero()) out += kWholeGpuMilli;
    }
    return out;
  }
};

struct PodState {
  core::PodStatus status = core::PodStatus::kPending;
  Index node = kNone;
  std::vector<int32_t> devices;  // device indices on `node`
  Quantity portion_milli;        // the pod's portion of each of `devices`
  std::vector<std::string> gpu_groups;
};

// Where a task goes: a node and, for GPU tasks, the devices and their groups.
struct Placement {
  Index node = kNone;
  std::vector<int32_t> devices;
  std::vector<std::string> gpu_groups;  // parallel to devices for shared GPUs; empty for whole
  Quantity portion_milli;               // per device: 1000 for whole GPUs
  bool whole_gpus = false;
};

// The part of a request that `idle`/`releasing` track (everything but GPUs).
core::ResourceVector NonGpu(const core::ResourceVector& request);

class ClusterState {
 public:
  // Pods StuckInReleasing (core::IsStuckInReleasing with `stuck_in_releasing_threshold`) hold
  // their resources as running pods do: they are not counted as releasing.
  ClusterState(const core::Snapshot& snapshot,
               std::chrono::seconds stuck_in_releasing_threshold = std::chrono::seconds(120));

  NodeState& node(Index i) { return nodes_[static_cast<size_t>(i)]; }
  const NodeState& node(Index i) const { return nodes_[static_cast<size_t>(i)]; }
  PodState& pod(Index i) { return pods_[static_cast<size_t>(i)]; }
  const PodState& pod(Index i) const { return pods_[static_cast<size_t>(i)]; }
  size_t node_count() const { return nodes_.size(); }

  // Names the state's content: each statement operation gives the state a new number and undoing
  // it restores the old one, so two moments with the same version see the same state (a cached
  // "this pod fits nowhere" holds while the version does).
  uint64_t version() const { return version_; }
  void set_version(uint64_t version) { version_ = version; }
  uint64_t NewVersion() { return ++last_version_; }

  // The nodes of `node_pool` in the order a placement strategy prefers them; built on first use
  // and kept current from then on (NodeChanged).
  const NodeOrderIndex& OrderIndex(NodeOrderIndex::Resource resource, bool binpack,
                                   const std::string& node_pool);
  // A statement changed the node's resources: re-files it in the order indices and logs it.
  void NodeChanged(Index node);
  // Every node change so far, in order (a node appears once per change, undos included): a
  // cache of per-node results made when the log had length L is brought up to date by redoing
  // the nodes logged after L.
  const std::vector<Index>& change_log() const { return change_log_; }

  // What a node's GPUs could hold once releasing pods are gone (free + releasing portions, in
  // milli-GPU), and the totals over usable nodes of that and of CPU (idle + releasing): kept
  // current per change so the victim solver's room checks cost nothing per node.
  int64_t gpu_room_milli(Index node) const { return gpu_room_[static_cast<size_t>(node)]; }
  int64_t cpu_room_milli(Index node) const { return cpu_room_[static_cast<size_t>(node)]; }
  int64_t usable_gpu_room_milli() const { return usable_gpu_room_; }
  // MIG instances idle or releasing on usable nodes, each counted as its <g> GPU units (KAI's
  // ResourceVector.TotalGPUs), in milli-GPU.
  int64_t usable_mig_room_milli() const { return usable_mig_room_; }
  int64_t usable_cpu_room_milli() const { return usable_cpu_room_; }
  // Whether a shared GPU on the node is in use by a pod that is not releasing (KAI's
  // IsTaskFitOnGpuGroup for a request of no GPU memory: gpusharingorder's score for pods that
  // ask for no GPU share), and on how many nodes that holds.
  bool shared_gpu_in_use(Index node) const { return shared_in_use_[static_cast<size_t>(node)]; }
  int64_t nodes_with_shared_gpu_in_use() const { return shared_in_use_count_; }
  // Nodes with anything releasing (resources or a device portion): the only nodes where a pod
  // can fit that does not fit on idle resources.
  const std::set<Index>& releasing_nodes() const {
    FileChangedNodes();
    return releasing_nodes_;
  }
  // Nodes by GPU room and by CPU room (idle + releasing CPU), least first: those with at least
  // a pod's need are the only ones it can fit on at all (GPU room is a bound when no device
  // is over-committed).
  using RoomOrder = std::set<std::pair<int64_t, Index>>;
  const RoomOrder& gpu_room_order() const {
    FileChangedNodes();
    return gpu_room_order_;
  }
  const RoomOrder& cpu_room_order() const {
    FileChangedNodes();
    return cpu_room_order_;
  }

 private:
  const core::Snapshot* snapshot_;
  std::vector<NodeState> nodes_;
  std::vector<PodState> pods_;
  std::vector<std::unique_ptr<NodeOrderIndex>> order_indices_;
  std::vector<Index> change_log_;
  std::vector<int64_t> gpu_room_;  // by node
  std::vector<int64_t> cpu_room_;  // by node
  int64_t usable_gpu_room_ = 0;
  int64_t usable_cpu_room_ = 0;
  // By node: its allocatable MIG profiles and their GPU units; what it adds to the MIG room.
  std::vector<std::vector<std::pair<std::string, int64_t>>> mig_profiles_;
  std::vector<int64_t> mig_room_;
  int64_t usable_mig_room_ = 0;
  std::vector<bool> shared_in_use_;  // by node
  int64_t shared_in_use_count_ = 0;
  // The orders above are filed lazily, when read: a victim search evicts and restores hundreds
  // of pods between two reads, and a node whose room is back where it was filed costs nothing.
  // Each node is filed under the values in `filed_`.
  struct Filed {
    bool in_orders = false;
    int64_t gpu_room = 0;
    int64_t cpu_room = 0;
    bool releasing = false;
  };
  void FileChangedNodes() const;
  mutable std::set<Index> releasing_nodes_;
  mutable RoomOrder gpu_room_order_;
  mutable RoomOrder cpu_room_order_;
  mutable std::vector<Filed> filed_;   // by node
  mutable std::vector<bool> unfiled_;  // by node: changed since filed
  mutable std::vector<Index> unfiled_list_;

  // Recomputes the node's room and the usable totals.
  void UpdateRoom(Index node);
  uint64_t version_ = 0;
  uint64_t last_version_ = 0;
};

}  // namespace quotient::framework
