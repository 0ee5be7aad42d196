// A fake libnvidia-ml.so.1. Devices: FAKECUDA_DEVICE_COUNT (default 2) of FAKECUDA_TOTAL_BYTES
// (default 16 GiB), nothing used; handles are index + 1. For quotient_nvml's tests also:
//   FAKE_NVML_UUIDS=a,b,...  the devices' UUIDs, their count overriding FAKECUDA_DEVICE_COUNT
//                            (empty: no device); unset: "GPU-00000000-0000-0000-0000-<index>"
//                            with the index in 12 hex digits.
//   FAKE_NVML_INIT_ERROR=<n> nvmlInit_v2 returns nvmlReturn_t n.
// The environment is read on every call, so a test may change it between calls.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "interposer/cuda_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// nvml.h's codes that cuda_abi.h does not declare (the interposer has no use for them).
constexpr nvmlReturn_t kErrorInsufficientSize = 7;
constexpr nvmlReturn_t kErrorDriverNotLoaded = 9;
constexpr nvmlReturn_t kErrorUnknown = 999;

const char* uuid_list() { return std::getenv("FAKE_NVML_UUIDS"); }

unsigned int device_count() {
  if (const char* uuids = uuid_list(); uuids != nullptr) {
    std::string_view list(uuids);
    if (list.empty()) return 0;
    return static_cast<unsigned int>(std::count(list.begin(), list.end(), ',')) + 1;
  }
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

// The device index of a handle this fake handed out, or false for any other handle.
bool device_index(nvmlDevice_t device, unsigned int* index) {
  std::uintptr_t value = handle_value(device);
  if (value == 0 || value > device_count()) return false;
  *index = static_cast<unsigned int>(value - 1);
  return true;
}

// Copies `text` with its terminator, as NVML does, or says the buffer is too small.
nvmlReturn_t copy_out(std::string_view text, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return kErrorInsufficientSize;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return NVML_SUCCESS;
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlInit_v2() {
  const char* error = std::getenv("FAKE_NVML_INIT_ERROR");
  return error != nullptr ? std::atoi(error) : NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }

// The texts of the real nvmlErrorString for the codes the tests use.
FAKE_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case kErrorInsufficientSize:
      return "Insufficient Size";
    case kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    case kErrorUnknown:
    default:
      return "Unknown Error";
  }
}

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
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  unsigned int index = 0;
  if (!device_index(device, &index)) return NVML_ERROR_INVALID_ARGUMENT;
  if (const char* uuids = uuid_list(); uuids != nullptr) {
    std::string_view rest(uuids);
    for (unsigned int skipped = 0; skipped < index; ++skipped) {
      rest.remove_prefix(rest.find(',') + 1);
    }
    return copy_out(rest.substr(0, rest.find(',')), uuid, length);
  }
  char generated[64];
  std::snprintf(generated, sizeof generated, "GPU-00000000-0000-0000-0000-%012x", index);
  return copy_out(generated, uuid, length);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  unsigned int index = 0;
  if (!device_index(device, &index)) return NVML_ERROR_INVALID_ARGUMENT;
  return copy_out("NVIDIA Fake GPU", name, length);
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
