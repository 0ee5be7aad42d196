// The one place where quotient_nvml finds NVML's entry points: a table of function pointers
// resolved by dlsym in the library Nvml::Load opened. A new call (issue 12's XID events, ECC
// counters, ...) is one member here, one line in ResolveSymbols and its signature in nvml_abi.h.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "nvml/nvml_abi.h"

namespace quotient::nvml {

struct Symbols {
  abi::InitFn init = nullptr;                                 // nvmlInit_v2
  abi::ShutdownFn shutdown = nullptr;                         // nvmlShutdown
  abi::ErrorStringFn error_string = nullptr;                  // nvmlErrorString
  abi::DeviceGetCountFn device_get_count = nullptr;           // nvmlDeviceGetCount_v2
  abi::DeviceGetHandleByIndexFn device_get_handle = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  abi::DeviceGetStringFn device_get_uuid = nullptr;           // nvmlDeviceGetUUID
  abi::DeviceGetStringFn device_get_name = nullptr;           // nvmlDeviceGetName
  abi::DeviceGetMemoryInfoFn device_get_memory = nullptr;     // nvmlDeviceGetMemoryInfo

  // "<call>: <nvmlErrorString's text>", e.g. "nvmlInit_v2: Driver Not Loaded".
  std::string Describe(std::string_view call, abi::Return code) const;
  // Ok for NVML_SUCCESS, else an error with Describe's message.
  Status Check(std::string_view call, abi::Return code) const;
};

// Resolves every entry point of the table in `handle` (from dlopen of `library`). An error names
// all the missing ones at once, so an old driver is diagnosed in one go.
Result<Symbols> ResolveSymbols(void* handle, std::string_view library);

}  // namespace quotient::nvml
