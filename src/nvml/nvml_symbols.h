// The one place where quotient_nvml finds NVML's entry points: a table of function pointers
// resolved by dlsym in the library Nvml::Load opened. A new call is one member here, one line in
// ResolveSymbols and its signature in nvml_abi.h.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "nvml/nvml_abi.h"

namespace quotient::nvml {

struct Symbols {
  // Required: Load fails without them (every driver NVML 11+ has them).
  abi::InitFn init = nullptr;                                 // nvmlInit_v2
  abi::ShutdownFn shutdown = nullptr;                         // nvmlShutdown
  abi::ErrorStringFn error_string = nullptr;                  // nvmlErrorString
  abi::DeviceGetCountFn device_get_count = nullptr;           // nvmlDeviceGetCount_v2
  abi::DeviceGetHandleByIndexFn device_get_handle = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  abi::DeviceGetStringFn device_get_uuid = nullptr;           // nvmlDeviceGetUUID
  abi::DeviceGetStringFn device_get_name = nullptr;           // nvmlDeviceGetName
  abi::DeviceGetMemoryInfoFn device_get_memory = nullptr;     // nvmlDeviceGetMemoryInfo

  // Optional: null where the library lacks them (an older driver, or a stub). The health
  // readers and the XID watcher answer "not supported" for a null slot, as for
  // NVML_ERROR_FUNCTION_NOT_FOUND, so the reservation pod's Load never depends on them.
  abi::DeviceGetPciInfoFn device_get_pci_info = nullptr;            // ..._v3
  abi::DeviceGetRemappedRowsFn device_get_remapped_rows = nullptr;  // Ampere+
  abi::DeviceGetTotalEccErrorsFn device_get_total_ecc_errors = nullptr;
  abi::DeviceGetRetiredPagesFn device_get_retired_pages = nullptr;  // ..._v2
  abi::DeviceGetEnableStateFn device_get_retired_pages_pending = nullptr;
  abi::DeviceGetNvLinkStateFn device_get_nvlink_state = nullptr;
  abi::DeviceGetNvLinkErrorCounterFn device_get_nvlink_error_counter = nullptr;
  abi::DeviceGetUnsignedFn device_get_curr_pcie_generation = nullptr;
  abi::DeviceGetUnsignedFn device_get_max_pcie_generation = nullptr;
  abi::DeviceGetUnsignedFn device_get_curr_pcie_width = nullptr;
  abi::DeviceGetUnsignedFn device_get_max_pcie_width = nullptr;
  abi::DeviceGetUnsignedFn device_get_pcie_replay_counter = nullptr;
  abi::DeviceGetFieldValuesFn device_get_field_values = nullptr;
  abi::EventSetCreateFn event_set_create = nullptr;
  abi::DeviceRegisterEventsFn device_register_events = nullptr;
  abi::EventSetWaitFn event_set_wait = nullptr;  // nvmlEventSetWait_v2
  abi::EventSetFreeFn event_set_free = nullptr;

  // "<call>: <nvmlErrorString's text>", e.g. "nvmlInit_v2: Driver Not Loaded".
  std::string Describe(std::string_view call, abi::Return code) const;
  // Ok for NVML_SUCCESS, else an error with Describe's message.
  Status Check(std::string_view call, abi::Return code) const;
};

// Resolves every entry point of the table in `handle` (from dlopen of `library`). An error names
// all the missing required ones at once, so an old driver is diagnosed in one go; missing
// optional ones leave their slot null.
Result<Symbols> ResolveSymbols(void* handle, std::string_view library);

}  // namespace quotient::nvml
