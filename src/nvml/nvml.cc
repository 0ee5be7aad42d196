#include "nvml/nvml.h"

#include <dlfcn.h>

#include <cstring>

namespace quotient::nvml {
namespace {

// The text NVML wrote into `buffer`. Bounded by the buffer so a missing terminator cannot run
// past it.
std::string FromBuffer(const char* buffer, size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

std::string DeviceCall(const char* call, unsigned index) {
  return std::string(call) + "(device " + std::to_string(index) + ")";
}

}  // namespace

Result<std::unique_ptr<Nvml>> Nvml::Load(const std::string& library) {
  // RTLD_LOCAL: NVML's symbols stay out of the global scope, where they could satisfy (or
  // clash with) other libraries' lookups.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return Result<std::unique_ptr<Nvml>>::Error(
        library + " not found: " + (reason != nullptr ? reason : "unknown reason"));
  }
  Result<Symbols> symbols = ResolveSymbols(handle, library);
  if (!symbols.ok()) {
    dlclose(handle);
    return symbols.status();
  }
  if (Status init = symbols->Check("nvmlInit_v2", symbols->init()); !init.ok()) {
    dlclose(handle);
    return init;
  }
  return std::unique_ptr<Nvml>(new Nvml(handle, *symbols));
}

Nvml::~Nvml() {
  // Nothing to do with a failed shutdown at this point: the process is letting NVML go.
  (void)symbols_.shutdown();
  dlclose(handle_);
}

Result<unsigned> Nvml::DeviceCount() const {
  unsigned int count = 0;
  if (Status status = symbols_.Check("nvmlDeviceGetCount_v2", symbols_.device_get_count(&count));
      !status.ok()) {
    return status;
  }
  return count;
}

Result<GpuInfo> Nvml::Device(unsigned index) const {
  abi::Device device = nullptr;
  if (Status status = symbols_.Check(DeviceCall("nvmlDeviceGetHandleByIndex_v2", index),
                                     symbols_.device_get_handle(index, &device));
      !status.ok()) {
    return status;
  }
  GpuInfo info;
  info.index = index;

  char uuid[abi::kUuidBufferSize] = {};
  if (Status status = symbols_.Check(DeviceCall("nvmlDeviceGetUUID", index),
                                     symbols_.device_get_uuid(device, uuid, abi::kUuidBufferSize));
      !status.ok()) {
    return status;
  }
  info.uuid = FromBuffer(uuid, abi::kUuidBufferSize);

  char name[abi::kNameBufferSize] = {};
  if (Status status = symbols_.Check(DeviceCall("nvmlDeviceGetName", index),
                                     symbols_.device_get_name(device, name, abi::kNameBufferSize));
      !status.ok()) {
    return status;
  }
  info.name = FromBuffer(name, abi::kNameBufferSize);

  abi::Memory memory{};
  if (Status status = symbols_.Check(DeviceCall("nvmlDeviceGetMemoryInfo", index),
                                     symbols_.device_get_memory(device, &memory));
      !status.ok()) {
    return status;
  }
  info.memory_total_bytes = memory.total;
  return info;
}

Result<std::vector<GpuInfo>> Nvml::Devices() const {
  Result<unsigned> count = DeviceCount();
  if (!count.ok()) return count.status();
  std::vector<GpuInfo> devices;
  devices.reserve(*count);
  for (unsigned index = 0; index < *count; ++index) {
    Result<GpuInfo> device = Device(index);
    if (!device.ok()) return device.status();
    devices.push_back(std::move(device).value());
  }
  return devices;
}

}  // namespace quotient::nvml
