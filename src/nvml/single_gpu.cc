#include "nvml/single_gpu.h"

namespace quotient::nvml {

Result<std::string> SingleVisibleGpuUuid(const Nvml& nvml) {
  Result<std::vector<GpuInfo>> devices = nvml.Devices();
  if (!devices.ok()) return devices.status();
  if (devices->size() == 1) return devices->front().uuid;
  std::string message =
      "expected exactly one visible GPU, NVML sees " + std::to_string(devices->size());
  // The UUIDs seen say which GPUs leaked in (NVIDIA_VISIBLE_DEVICES=all, a privileged pod).
  for (size_t i = 0; i < devices->size(); ++i) {
    message += (i == 0 ? ": " : ", ") + (*devices)[i].uuid;
  }
  return Result<std::string>::Error(std::move(message));
}

}  // namespace quotient::nvml
