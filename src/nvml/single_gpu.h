// The GPU a reservation pod holds (issue 11). As in KAI, the binder creates one reservation pod
// per GPU group, requesting one whole nvidia.com/gpu; the device plugin makes exactly that GPU
// visible to it, and the pod reports the GPU's UUID (KAI: annotation run.ai/reserve_for_gpu_index)
// so the pods sharing it can be wired to it. Anything but one visible device means the pod did
// not get its GPU the way we assume: an error, never a guess.
#pragma once

#include <string>

#include "common/status.h"
#include "nvml/nvml.h"

namespace quotient::nvml {

// The UUID of the only device `nvml` sees. Errors: "expected exactly one visible GPU, NVML sees
// 0" (or "sees 2: GPU-..., GPU-..."), and any error of Nvml::Devices.
Result<std::string> SingleVisibleGpuUuid(const Nvml& nvml);

}  // namespace quotient::nvml
