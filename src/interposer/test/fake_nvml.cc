// A fake libnvidia-ml.so.1: the entry points every user of it calls (initialisation, devices,
// UUID, name, memory). Handles are index + 1. The devices come from the environment or a
// scenario file (fake_nvml_state.h); the health and event entry points are in
// fake_nvml_health.cc and fake_nvml_events.cc, left out of the "basic" build that stands for a
// driver without them.
//   FAKE_NVML_INIT_ERROR=<n>  nvmlInit_v2 returns nvmlReturn_t n.
// The environment (and the scenario file) is read on every call, so a test may change it between
// calls.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "interposer/test/fake_nvml_state.h"

namespace {

using fake_nvml::BeginDeviceCall;
using fake_nvml::DeviceCall;

// Copies `text` with its terminator, as NVML does, or says the buffer is too small.
nvmlReturn_t copy_out(std::string_view text, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return fake_nvml::kErrorInsufficientSize;
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return NVML_SUCCESS;
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlInit_v2() {
  const auto state = fake_nvml::CurrentState();
  if (state->init_hang_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(state->init_hang_ms));
  }
  const char* error = std::getenv("FAKE_NVML_INIT_ERROR");
  return error != nullptr ? std::atoi(error) : NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }

// The texts of the real nvmlErrorString for the codes the fake answers.
FAKE_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case fake_nvml::kErrorNotSupported:
      return "Not Supported";
    case fake_nvml::kErrorInsufficientSize:
      return "Insufficient Size";
    case fake_nvml::kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    case fake_nvml::kErrorTimeout:
      return "Timeout";
    case fake_nvml::kErrorFunctionNotFound:
      return "Function Not Found";
    case fake_nvml::kErrorGpuIsLost:
      return "GPU is lost";
    case fake_nvml::kErrorUnknown:
    default:
      return "Unknown Error";
  }
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = static_cast<unsigned int>(fake_nvml::CurrentState()->devices.size());
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  const DeviceCall call =
      BeginDeviceCall(fake_nvml::HandleOf(index), "nvmlDeviceGetHandleByIndex_v2");
  if (call.code != NVML_SUCCESS) return call.code;
  *device = fake_nvml::HandleOf(index);
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index) {
  const DeviceCall call = BeginDeviceCall(device, "nvmlDeviceGetIndex");
  if (call.code != NVML_SUCCESS) return call.code;
  *index = call.index;
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  const DeviceCall call = BeginDeviceCall(device, "nvmlDeviceGetUUID");
  if (call.code != NVML_SUCCESS) return call.code;
  return copy_out(call.device->uuid, uuid, length);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  const DeviceCall call = BeginDeviceCall(device, "nvmlDeviceGetName");
  if (call.code != NVML_SUCCESS) return call.code;
  return copy_out(call.device->name, name, length);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  const DeviceCall call = BeginDeviceCall(device, "nvmlDeviceGetMemoryInfo");
  if (call.code != NVML_SUCCESS) return call.code;
  const unsigned long long total = call.device->memory_total;
  *memory = nvmlMemory_t{total, total, 0};
  return NVML_SUCCESS;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  const DeviceCall call = BeginDeviceCall(device, "nvmlDeviceGetMemoryInfo_v2");
  if (call.code != NVML_SUCCESS) return call.code;
  memory->total = call.device->memory_total;
  memory->reserved = 0;
  memory->free = call.device->memory_total;
  memory->used = 0;
  return NVML_SUCCESS;
}
