// A fake libnvidia-ml.so.1: FAKECUDA_DEVICE_COUNT devices (default 2) of FAKECUDA_TOTAL_BYTES
// (default 16 GiB), nothing used. Handles are index + 1.
#include <cstdint>
#include <cstdlib>

#include "interposer/cuda_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

unsigned int device_count() {
  const char* value = std::getenv("FAKECUDA_DEVICE_COUNT");
  return value != nullptr ? static_cast<unsigned int>(std::atoi(value)) : 2;
}

unsigned long long total_bytes() {
  const char* value = std::getenv("FAKECUDA_TOTAL_BYTES");
  return value != nullptr ? std::strtoull(value, nullptr, 10) : 16ULL << 30;
}

std::uintptr_t handle_value(nvmlDevice_t device) {
  return reinterpret_cast<std::uintptr_t>(device);
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlInit_v2() { return NVML_SUCCESS; }
FAKE_EXPORT nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = device_count();
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index >= device_count()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(std::uintptr_t{index} + 1);
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index) {
  *index = static_cast<unsigned int>(handle_value(device) - 1);
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* memory) {
  *memory = nvmlMemory_t{total_bytes(), total_bytes(), 0};
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t* memory) {
  memory->total = total_bytes();
  memory->reserved = 0;
  memory->free = total_bytes();
  memory->used = 0;
  return NVML_SUCCESS;
}
