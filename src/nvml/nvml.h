// Reads the node's GPUs through NVML's C ABI (README.md). libnvidia-ml.so.1 is opened with
// dlopen at run time, not linked: it is the driver's, present only on GPU nodes and mounted into
// containers by the NVIDIA container toolkit, so the same binary runs (and reports why not)
// where there is none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "nvml/nvml_symbols.h"

namespace quotient::nvml {

inline constexpr const char* kDefaultLibrary = "libnvidia-ml.so.1";

struct GpuInfo {
  unsigned index = 0;  // NVML's, among the devices this process sees; may change across reboots
  std::string uuid;    // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string name;    // e.g. "NVIDIA H100 80GB HBM3"
  uint64_t memory_total_bytes = 0;
};

// One initialised NVML: Load opens the library, resolves the entry points and calls
// nvmlInit_v2; the destructor calls nvmlShutdown and closes the library. NVML counts its
// initialisations, so several Nvml objects may live at once. Calls are safe from several threads
// (NVML's own guarantee; this class keeps no mutable state).
class Nvml {
 public:
  // `library` is a soname searched the dynamic loader's way, or a path. Errors:
  // "<library> not found: <dlerror>", "<library> lacks <entry points>",
  // "nvmlInit_v2: <nvmlErrorString>".
  static Result<std::unique_ptr<Nvml>> Load(const std::string& library = kDefaultLibrary);

  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml();

  Result<unsigned> DeviceCount() const;
  // An error names the call and the device: "nvmlDeviceGetUUID(device 1): Insufficient Size".
  Result<GpuInfo> Device(unsigned index) const;
  // Every visible device, in NVML's index order; the first error stops the walk.
  Result<std::vector<GpuInfo>> Devices() const;

  // The resolved entry points, for the readers built on this Nvml (gpu_health.h,
  // xid_events.h). Valid as long as this object lives.
  const Symbols& symbols() const { return symbols_; }

 private:
  Nvml(void* handle, Symbols symbols) : handle_(handle), symbols_(symbols) {}

  void* handle_;  // from dlopen
  Symbols symbols_;
};

}  // namespace quotient::nvml
