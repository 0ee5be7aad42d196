// Does a pod's request fit on a node, and on which GPU devices (kai-reference §5.2, §7.1)?
//
// Everything but GPUs must fit in the node's idle resources (the pod is then allocated) or in
// idle plus releasing ones (the pod is pipelined: it waits for the releasing pods to go).
// GPU devices:
//   whole GPUs   free devices, lowest index first; devices held only by releasing pods if needed
//                (a pod that is pipelined takes those first, leaving free ones to pods that can
//                start now);
//   fractions    an existing shared GPU with room for the portion, or a free device (which gets a
//                new GPU group); candidates are ordered by gpupack (most-used shared GPU first,
//                free devices last) or gpuspread (least used first), then by index, and the
//                first `gpu-fraction-num-devices` are taken. A candidate that has room only once
//                its releasing co-tenants leave makes the pod pipelined (KAI prefers the fuller
//                GPU even then). A new GPU group costs one more pod slot (its reservation pod).
#pragma once

#include <optional>
#include <string>

#include "framework/session.h"

namespace quotient::actions {

struct PlacementPolicy {
  bool gpu_binpack = true;  // nodeplacement gpu: binpack | spread
  // nodeplacement gpu: fragmentation — GPU pods go where they add the least fragmentation
  // (fragmentation.h); ties, and CPU-only pods, as bin-pack.
  bool gpu_fragmentation = false;
  bool cpu_binpack = true;       // nodeplacement cpu: binpack | spread
  bool pack_shared_gpus = true;  // gpupack (true) or gpuspread (false) inside a node
};

enum class Fit { kNone, kIdle, kReleasing };

struct NodeFit {
  Fit fit = Fit::kNone;
  std::string reason;  // kNone: "node(s) didn't have enough resources: GPUs and cpu"
  framework::Placement placement;
  bool fits_idle = false;  // it fits on idle resources alone (allocated, not pipelined)
  // nodeavailability (KAI's IsTaskAllocatable): as fits_idle, except that a shared-GPU pod needs
  // only enough devices that are free or shared with room counting releasing co-tenants.
  bool available = false;
  bool fits_existing_shared = false;  // gpusharingorder: it fits a shared GPU already in use
};

// `with_placement` false leaves `placement` empty (no device list, no GPU group names): enough
// to score the node, and much cheaper when most nodes are only scored.
// `shared_device`, for a one-device shared-GPU pod, puts it on that device (which must be able
// to take it) instead of the one the policy's order prefers.
NodeFit FitResources(const framework::Session& session, core::Index pod, core::Index node,
                     const PlacementPolicy& policy, bool with_placement = true,
                     std::optional<int32_t> shared_device = std::nullopt);

// A cheap necessary condition for FitResources: false only where FitResources would find no
// fit (cpu, memory or pods short even counting releasing resources, or too few devices with
// room). Allocates nothing; the placer uses it to pass over full nodes quickly.
bool MightFit(const framework::Session& session, core::Index pod, core::Index node);

// The portion of one device a shared-GPU pod needs on `node` (gpu-memory converted with the
// node's GPU memory).
core::Quantity PortionOn(const core::Pod& pod, const core::Node& node);

// `count` devices of a node for a whole-GPU pod to be pipelined: devices releasing pods give
// back first, then free ones (the node must have that many of the two together).
std::vector<int32_t> WholeDevicesForPipeline(const framework::NodeState& state, int64_t count);

// KAI's isValidGpuPortion (node_info.go): a gpu-memory request converts to a portion of one of
// the node's GPUs, and a portion above one GPU that is not a whole number of GPUs fits no GPU of
// that node (for example 40960 MiB on a node whose 40960 MiB label KAI floors to 40900).
bool PortionValidOn(const core::Pod& pod, const core::Node& node);

// A new GPU group's name: "<node>-gpu<index>", or a hash-based name when that would not be a
// valid label value (over 63 characters); unique among the node's groups.
std::string NewGpuGroupName(const std::vector<framework::DeviceState>& devices,
                            const std::string& node_name, int32_t device);

}  // namespace quotient::actions
