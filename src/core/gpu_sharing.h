// GpuSharing: how a pod asks for GPUs, read from KAI's annotations and the nvidia.com/gpu and
// MIG resources (kai-reference §5.1, §5.5).
//
//   whole      nvidia.com/gpu: N                 -> N devices, exclusively
//   fraction   gpu-fraction: "0.5"               -> that portion of each of num_devices GPUs
//   memory     gpu-memory: "20000" (MiB)         -> that much memory on each of num_devices GPUs
//   mig        nvidia.com/mig-<g>g.<mem>gb: N    -> MIG instances, a scalar resource
// `gpu-fraction-num-devices` multiplies fraction and memory requests; `gpu-fraction-container-name`
// names the container that receives the GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "core/objects.h"
#include "core/quantity.h"

namespace quotient::core {

struct GpuSharing {
  enum class Kind { kNone, kWhole, kFraction, kMemory, kMig };

  Kind kind = Kind::kNone;
  int64_t whole_devices = 0;     // kWhole
  Quantity portion_milli;        // kFraction: per device, in (0, 1000]
  Quantity memory_mib;           // kMemory: per device
  int64_t num_devices = 1;       // kFraction / kMemory
  Quantity mig_gpu_units_milli;  // kMig: sum of <g> x count, in milli-GPU
  std::string container_name;    // gpu-fraction-container-name, empty = first container
  // kMig read from a nvidia.com/mig-<profile> pod annotation: KAI's legacy MIG pod, which is
  // never placed and keeps MIG pods off its node.
  bool legacy_mig = false;

  bool is_shared() const { return kind == Kind::kFraction || kind == Kind::kMemory; }
};

// Annotation keys.
inline constexpr std::string_view kGpuFractionAnnotation = "gpu-fraction";
inline constexpr std::string_view kGpuMemoryAnnotation = "gpu-memory";
inline constexpr std::string_view kGpuFractionNumDevicesAnnotation = "gpu-fraction-num-devices";
inline constexpr std::string_view kGpuFractionContainerAnnotation = "gpu-fraction-container-name";

// Reads the GPU request of `pod` from its annotations and its (already summed) request vector.
// Errors name the annotation and the bad value, e.g.
//   annotation gpu-fraction: "1.7" is not a fraction in (0, 1]
Result<GpuSharing> ReadGpuSharing(const PodObject& pod, const ResourceVector& request);

// The GPU units of a MIG resource name: "nvidia.com/mig-3g.40gb" -> 3; nullopt when the name is
// not a MIG profile.
std::optional<int64_t> MigGpuUnits(std::string_view resource_name);

// KAI's memory-to-portion conversion on a node with `gpu_memory_mib` per device:
// ceil(memory / gpu_memory x 100) / 100, in milli-GPU (so multiples of 10).
Quantity MemoryToPortionMilli(Quantity memory_mib, int64_t gpu_memory_mib);

}  // namespace quotient::core
