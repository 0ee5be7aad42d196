#include "actions/node_fit.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

namespace quotient::actions {
namespace {

using core::Index;
using core::Quantity;
using framework::DeviceState;

struct DeviceChoice {
  bool possible = false;
  bool idle = false;  // without waiting for releasing pods
  std::vector<int32_t> devices;
  std::vector<std::string> groups;
  int new_groups = 0;
  bool fits_existing_shared = false;
  // Shared-GPU pods: devices that can take the pod without waiting for a whole GPU to be
  // released (free devices, and groups in use with room once their releasing co-tenants go).
  int64_t available_devices = 0;
};

// A pod that will be pipelined takes devices releasing pods give back first, leaving free ones
// to pods that can start now (KAI charges a Pipelined task's GPUs to ReleasingVector).
DeviceChoice ChooseWholeDevices(const framework::NodeState& state, int64_t count, bool with_devices,
                                bool releasing_first = false) {
  DeviceChoice c;
  std::vector<int32_t> free_now;
  std::vector<int32_t> freeing;
  int64_t free_count = 0;
  int64_t freeing_count = 0;
  for (size_t d = 0; d < state.devices.size(); ++d) {
    const DeviceState& dev = state.devices[d];
    if (dev.free_milli() == Quantity(framework::kWholeGpuMilli)) {
      ++free_count;
      if (with_devices) free_now.push_back(static_cast<int32_t>(d));
    } else if (dev.used_milli.is_zero()) {
      ++freeing_count;
      if (with_devices) freeing.push_back(static_cast<int32_t>(d));
    }
  }
  c.idle = free_count >= count;
  c.possible = free_count + freeing_count >= count;
  if (!c.possible || !with_devices) return c;
  if (releasing_first) std::swap(free_now, freeing);
  free_now.insert(free_now.end(), freeing.begin(), freeing.end());
  c.devices.assign(free_now.begin(), free_now.begin() + count);
  return c;
}

struct SharedCandidate {
  int32_t device;
  bool existing;  // joins a group in use
  bool needs_releasing;
  int64_t score;
};

// Device `d` as a home for a shared portion, or nothing when it cannot take it even once
// releasing pods are gone.
std::optional<SharedCandidate> SharedCandidateAt(const framework::NodeState& state, size_t d,
                                                 Quantity portion, bool pack) {
  const DeviceState& dev = state.devices[d];
  // A group can be joined while a pod that is not releasing holds a share of it (KAI's
  // IsTaskFitOnGpuGroup: not isAllGpuReleased).
  const bool existing = dev.kind == DeviceState::Kind::kShared && !dev.group.empty() &&
                        dev.holders > 0 && !dev.used_milli.is_zero();
  const bool fresh = dev.free_milli() == Quantity(framework::kWholeGpuMilli);
  // A device whose holders are all releasing (a whole-GPU pod, or every pod of a shared group:
  // KAI then counts the device as a releasing whole GPU) can take a new group once it is free.
  const bool freeing = !fresh && dev.used_milli.is_zero();
  if (!existing && !fresh && !freeing) return std::nullopt;
  // Such a device is a releasing whole GPU: a new group there waits for it (KAI's
  // findGpuForSharingOnNode charges a new group a whole idle GPU, and the node has none here).
  // A group only pipelined pods ever joined has started on nothing: a pod joining it waits with
  // them (KAI's EnoughIdleResourcesOnGpu: a group missing from AllocatedSharedGPUsMemory).
  const bool only_pipelined = existing && !dev.allocated_group;
  const bool fits_now = !freeing && !only_pipelined && portion <= dev.free_milli();
  const bool fits_later = portion <= dev.free_milli() + dev.releasing_milli;
  if (!fits_later) return std::nullopt;
  const int64_t used = existing ? dev.used_milli.value() + dev.releasing_milli.value() : 0;
  return SharedCandidate{static_cast<int32_t>(d), existing, !fits_now,
                         pack ? used : framework::kWholeGpuMilli - used};
}

// Higher score first; at equal scores a device the pod can have now before one it must wait
// for (a new group goes to an idle whole GPU before a releasing one, as KAI's does).
bool BetterShared(const SharedCandidate& a, const SharedCandidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return !a.needs_releasing && b.needs_releasing;
}

// The candidate a one-device pod takes: the first of the best (what the stable sort below puts
// first), found without building the list.
DeviceChoice ChooseOneSharedDevice(const framework::NodeState& state, Quantity portion, bool pack) {
  DeviceChoice c;
  std::optional<SharedCandidate> pick;
  for (size_t d = 0; d < state.devices.size(); ++d) {
    std::optional<SharedCandidate> candidate = SharedCandidateAt(state, d, portion, pack);
    if (!candidate) continue;
    c.fits_existing_shared = c.fits_existing_shared || candidate->existing;
    c.available_devices += candidate->existing || !candidate->needs_releasing ? 1 : 0;
    if (!pick || BetterShared(*candidate, *pick)) pick = candidate;
  }
  if (!pick) return c;
  c.possible = true;
  c.idle = !pick->needs_releasing;
  c.new_groups = pick->existing ? 0 : 1;
  return c;
}

DeviceChoice ChooseSharedDevices(const framework::NodeState& state, const std::string& node_name,
                                 Quantity portion, int64_t count, bool pack, bool with_devices,
                                 std::optional<int32_t> only_device) {
  if (!with_devices && count == 1 && !only_device) {
    return ChooseOneSharedDevice(state, portion, pack);
  }
  DeviceChoice c;
  std::vector<SharedCandidate> candidates;
  for (size_t d = 0; d < state.devices.size(); ++d) {
    std::optional<SharedCandidate> candidate = SharedCandidateAt(state, d, portion, pack);
    if (!candidate) continue;
    c.fits_existing_shared = c.fits_existing_shared || candidate->existing;
    c.available_devices += candidate->existing || !candidate->needs_releasing ? 1 : 0;
    if (only_device && static_cast<int32_t>(d) != *only_device) continue;
    candidates.push_back(*candidate);
  }
  if (static_cast<int64_t>(candidates.size()) < count) return c;
  std::stable_sort(candidates.begin(), candidates.end(), BetterShared);
  c.possible = true;
  c.idle = true;
  std::vector<DeviceState> named;  // copied on first use so a pod's new groups get distinct names
  for (int64_t k = 0; k < count; ++k) {
    const SharedCandidate& pick = candidates[static_cast<size_t>(k)];
    c.devices.push_back(pick.device);
    c.idle = c.idle && !pick.needs_releasing;
    if (!with_devices) {
      c.new_groups += pick.existing ? 0 : 1;
    } else if (pick.existing) {
      c.groups.push_back(state.devices[static_cast<size_t>(pick.device)].group);
    } else {
      if (named.empty()) named = state.devices;
      c.groups.push_back(NewGpuGroupName(named, node_name, pick.device));
      named[static_cast<size_t>(pick.device)].group = c.groups.back();
      ++c.new_groups;
    }
  }
  return c;
}

// The resources of `need` that `have` cannot cover, by name.
std::vector<std::string> Short(const core::ResourceVector& need, const core::ResourceVector& have) {
  std::vector<std::string> out;
  if (need.cpu_milli > have.cpu_milli) out.push_back("cpu");
  if (need.memory_bytes > have.memory_bytes) out.push_back("memory");
  if (need.pods_milli > have.pods_milli) out.push_back("pods");
  for (const auto& [name, amount] : need.scalars()) {
    if (amount > have.Scalar(name)) out.push_back(name);
  }
  return out;
}

std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : (i + 1 == items.size() ? " and " : ", ")) + items[i];
  }
  return out;
}

}  // namespace

std::vector<int32_t> WholeDevicesForPipeline(const framework::NodeState& state, int64_t count) {
  return ChooseWholeDevices(state, count, /*with_devices=*/true, /*releasing_first=*/true).devices;
}

bool PortionValidOn(const core::Pod& pod, const core::Node& node) {
  if (pod.gpu.kind != core::GpuSharing::Kind::kMemory || !node.gpu_memory_mib) return true;
  const int64_t portion =
      core::MemoryToPortionMilli(pod.gpu.memory_mib, *node.gpu_memory_mib).value();
  return portion <= framework::kWholeGpuMilli || portion % framework::kWholeGpuMilli == 0;
}

Quantity PortionOn(const core::Pod& pod, const core::Node& node) {
  if (pod.gpu.kind == core::GpuSharing::Kind::kFraction) return pod.gpu.portion_milli;
  if (!node.gpu_memory_mib) return Quantity(framework::kWholeGpuMilli);
  return core::Min(Quantity(framework::kWholeGpuMilli),
                   core::MemoryToPortionMilli(pod.gpu.memory_mib, *node.gpu_memory_mib));
}

std::string NewGpuGroupName(const std::vector<DeviceState>& devices, const std::string& node_name,
                            int32_t device) {
  std::string base = node_name + "-gpu" + std::to_string(device);
  if (base.size() > 50) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a of the node name
    for (char ch : node_name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
    base = "gpu" + std::to_string(device) + "-" + buf;
  }
  std::string name = base;
  for (int k = 2;; ++k) {
    const bool taken = std::any_of(devices.begin(), devices.end(),
                                   [&](const DeviceState& d) { return d.group == name; });
    if (!taken) return name;
    name = base + "-" + std::to_string(k);
  }
}

bool MightFit(const framework::Session& session, Index pod_index, Index node_index) {
  const core::Pod& pod = session.pod(pod_index);
  const framework::NodeState& state = session.state().node(node_index);
  const core::ResourceVector& need = pod.request;
  if (need.cpu_milli > state.idle.cpu_milli + state.releasing.cpu_milli ||
      need.memory_bytes > state.idle.memory_bytes + state.releasing.memory_bytes ||
      need.pods_milli > state.idle.pods_milli + state.releasing.pods_milli) {
    return false;
  }
  if (pod.gpu.kind == core::GpuSharing::Kind::kWhole) {
    // ChooseWholeDevices takes devices nobody but releasing pods holds.
    int64_t usable = 0;
    for (const DeviceState& d : state.devices) usable += d.used_milli.is_zero() ? 1 : 0;
    return usable >= pod.gpu.whole_devices;
  }
  if (pod.gpu.is_shared()) {
    if (!PortionValidOn(pod, session.node(node_index))) return false;
    // Every candidate of ChooseSharedDevices has room for the portion once releasing pods go.
    const Quantity portion = PortionOn(pod, session.node(node_index));
    int64_t roomy = 0;
    for (const DeviceState& d : state.devices) {
      roomy += portion <= Quantity(framework::kWholeGpuMilli) - d.used_milli ? 1 : 0;
    }
    return roomy >= pod.gpu.num_devices;
  }
  return true;
}

NodeFit FitResources(const framework::Session& session, Index pod_index, Index node_index,
                     const PlacementPolicy& policy, bool with_placement,
                     std::optional<int32_t> shared_device) {
  const core::Pod& pod = session.pod(pod_index);
  const core::Node& node = session.node(node_index);
  const framework::NodeState& state = session.state().node(node_index);
  NodeFit out;
  DeviceChoice gpu;
  gpu.possible = true;
  gpu.idle = true;
  if (pod.gpu.kind == core::GpuSharing::Kind::kWhole) {
    gpu = ChooseWholeDevices(state, pod.gpu.whole_devices, with_placement);
  } else if (pod.gpu.is_shared()) {
    gpu = ChooseSharedDevices(state, node.name, PortionOn(pod, node), pod.gpu.num_devices,
                              policy.pack_shared_gpus, with_placement,
                              pod.gpu.num_devices == 1 ? shared_device : std::nullopt);
  }
  core::ResourceVector need = framework::NonGpu(pod.request);
  need.pods_milli += Quantity(1000).Times(gpu.new_groups);  // one reservation pod per new group
  core::ResourceVector eventually = state.idle;
  eventually += state.releasing;
  std::vector<std::string> short_of = Short(need, eventually);
  if (!PortionValidOn(pod, node)) {
    short_of.insert(short_of.begin(), "GPU memory");
  } else if (!gpu.possible) {
    short_of.insert(short_of.begin(), "GPUs");
  }
  if (!short_of.empty()) {
    out.reason = "node(s) didn't have enough resources: " + JoinAnd(short_of);
    return out;
  }
  const bool non_gpu_idle = Short(need, state.idle).empty();
  out.fits_idle = non_gpu_idle && gpu.idle;
  out.fits_existing_shared = gpu.fits_existing_shared;
  // KAI's IsTaskAllocatable counts, for a shared-GPU pod, idle whole GPUs plus the groups in use
  // that fit it counting releasing co-tenants (fractionTaskGpusAllocatableDeviceCount): the node
  // is available even when the device the pod will take makes it wait.
  // (`need` adds only reservation pods to the request: when it fits idle, so does the request.)
  out.available =
      pod.gpu.is_shared()
          ? gpu.available_devices >= pod.gpu.num_devices &&
                (non_gpu_idle || Short(framework::NonGpu(pod.request), state.idle).empty())
          : out.fits_idle;
  out.fit = out.fits_idle ? Fit::kIdle : Fit::kReleasing;
  if (!with_placement) return out;
  if (out.fit == Fit::kReleasing && pod.gpu.kind == core::GpuSharing::Kind::kWhole) {
    gpu = ChooseWholeDevices(state, pod.gpu.whole_devices, true, /*releasing_first=*/true);
  }
  out.placement.node = node_index;
  out.placement.devices = gpu.devices;
  out.placement.gpu_groups = gpu.groups;
  out.placement.whole_gpus = pod.gpu.kind == core::GpuSharing::Kind::kWhole;
  out.placement.portion_milli = out.placement.whole_gpus ? Quantity(framework::kWholeGpuMilli)
                                : pod.gpu.is_shared()    ? PortionOn(pod, node)
                                                         : Quantity::Zero();
  return out;
}

}  // namespace quotient::actions
