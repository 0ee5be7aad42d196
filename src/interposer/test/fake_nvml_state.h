// The fake libnvidia-ml.so.1's device state (fake_nvml*.cc), from the environment or from a
// scenario file, and the checks every device entry point makes first.
//
// Two sources, decided on every call:
//   FAKE_NVML_SCENARIO=<file.json>  the devices and their health (format in src/nvml/README.md),
//                                   re-read whenever the file's mtime, size or inode changes, so a
//                                   test injects a fault by rewriting it (write + rename).
//   otherwise                       the environment of the original fake: FAKECUDA_DEVICE_COUNT
//                                   (default 2), FAKECUDA_TOTAL_BYTES (default 16 GiB),
//                                   FAKE_NVML_UUIDS (overrides the count); health all good.
// FAKE_NVML_INIT_ERROR (nvmlInit_v2's answer) applies to both.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interposer/cuda_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace fake_nvml {

// nvml.h's codes that cuda_abi.h does not declare (the interposer has no use for them).
inline constexpr nvmlReturn_t kErrorNotSupported = 3;
inline constexpr nvmlReturn_t kErrorInsufficientSize = 7;
inline constexpr nvmlReturn_t kErrorDriverNotLoaded = 9;
inline constexpr nvmlReturn_t kErrorTimeout = 10;
inline constexpr nvmlReturn_t kErrorFunctionNotFound = 13;
inline constexpr nvmlReturn_t kErrorGpuIsLost = 15;
inline constexpr nvmlReturn_t kErrorUnknown = 999;

struct NvLink {
  bool active = true;
  unsigned long long replay = 0;
  unsigned long long recovery = 0;
  unsigned long long crc_flit = 0;
  unsigned long long crc_data = 0;
};

struct Device {
  std::string uuid;
  std::string bus_id;  // "00000000:18:00.0"
  std::string name = "NVIDIA Fake GPU";
  unsigned long long memory_total = 16ULL << 30;
  // nvmlDeviceGetRemappedRows
  unsigned remapped_corr = 0, remapped_unc = 0;
  bool remap_pending = false, remap_failure = false;
  // nvmlDeviceGetTotalEccErrors
  unsigned long long ecc_volatile_corrected = 0, ecc_volatile_uncorrected = 0;
  unsigned long long ecc_aggregate_corrected = 0, ecc_aggregate_uncorrected = 0;
  // nvmlDeviceGetRetiredPages_v2, nvmlDeviceGetRetiredPagesPendingStatus
  unsigned retired_sbe = 0, retired_dbe = 0;
  bool retired_pending = false;
  std::vector<NvLink> nvlinks;  // none: every NVLink call answers NOT_SUPPORTED
  unsigned pcie_cur_gen = 4, pcie_max_gen = 4, pcie_cur_width = 16, pcie_max_width = 16;
  unsigned pcie_replay = 0;
  unsigned recovery_action = 0;      // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION's value
  bool lost = false;                 // every call on the device: NVML_ERROR_GPU_IS_LOST
  unsigned hang_ms = 0;              // every call on the device sleeps this long first,
  std::set<std::string> hang_calls;  // or only these calls, when any are listed
  // Calls (entry point names, or "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION" for the field) that
  // answer NVML_ERROR_NOT_SUPPORTED; `errors` gives any other code per call.
  std::set<std::string> unsupported;
  std::map<std::string, nvmlReturn_t> errors;
};

struct XidEvent {
  std::string uuid;
  unsigned long long xid = 0;
  long long seq = 0;  // identifies the event: each event set returns a seq once
};

struct State {
  std::vector<Device> devices;
  std::vector<XidEvent> xid_events;  // in the order nvmlEventSetWait_v2 returns them
  unsigned init_hang_ms = 0;
};

// The state as the environment and the scenario file now stand. A scenario that cannot be read
// or parsed keeps the last good one (and says why on stderr), so a test that writes the file in
// place never sees half of it as "no devices".
std::shared_ptr<const State> CurrentState();

// The device index of a handle this fake handed out (index + 1), or false.
bool HandleIndex(nvmlDevice_t device, const State& state, unsigned* index);
nvmlDevice_t HandleOf(unsigned index);

// What every device entry point does first, in this order: an unknown handle answers
// INVALID_ARGUMENT; hang_ms sleeps (hang_calls, if any, name the calls that do); lost answers
// GPU_IS_LOST; `call` in unsupported answers NOT_SUPPORTED, in errors its code. `code` is
// NVML_SUCCESS when the call may proceed with `device`. The state is taken before the sleep, so a
// hung call touches neither the environment nor the file after it.
struct DeviceCall {
  std::shared_ptr<const State> state;
  const Device* device = nullptr;
  unsigned index = 0;
  nvmlReturn_t code = NVML_SUCCESS;
};
DeviceCall BeginDeviceCall(nvmlDevice_t device, const char* call);

// The answer injected for `call` on `device` (unsupported/errors), or NVML_SUCCESS.
nvmlReturn_t InjectedError(const Device& device, const std::string& call);

}  // namespace fake_nvml
