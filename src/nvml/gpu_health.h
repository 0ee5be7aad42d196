// One GPU's health as NVML reports it: what the node health agent (issue 12) polls, read in one
// pass of plain NVML calls. The reading judges nothing (that is src/nodehealth's job); it keeps
// three answers apart for every field:
//   a value                  the call succeeded;
//   std::nullopt + listed in not_supported: the driver or device cannot answer
//                            (NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND, or the
//                            entry point missing from the library), which is normal: no NVLink
//                            on a PCIe card, no row remapping before Ampere;
//   std::nullopt + an entry in errors: any other failure.
// NVML_ERROR_GPU_IS_LOST from any call sets `lost` and ends the pass: every later call would
// fail the same way, each possibly slowly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nvml/nvml.h"
#include "nvml/nvml_abi.h"

namespace quotient::nvml {

// The driver's verdict (nvmlDeviceGpuRecoveryAction_t, from field
// NVML_FI_DEV_GET_GPU_RECOVERY_ACTION). A value a newer driver adds keeps its number.
enum class GpuRecoveryAction : unsigned {
  kNone = 0,
  kGpuReset = 1,      // reset the GPU (processes on it must end first)
  kNodeReboot = 2,    // the OS may be inconsistent: reboot the node
  kDrainP2p = 3,      // stop peer-to-peer traffic, then read the field again
  kDrainAndReset = 4  // reduced capacity: drain at leisure, then reset
};

// nvmlDeviceGetRemappedRows (Ampere+): HBM rows replaced by spares.
struct RemappedRows {
  unsigned correctable = 0;       // rows remapped after correctable errors
  unsigned uncorrectable = 0;     // rows remapped after uncorrectable errors
  bool pending = false;           // a remap waits for a GPU reset
  bool failure_occurred = false;  // a remap failed: no spare left for that bank
};

// nvmlDeviceGetTotalEccErrors, each counter on its own: volatile counts restart at driver
// load, aggregate ones cover the device's life.
struct EccCounts {
  std::optional<uint64_t> volatile_corrected;
  std::optional<uint64_t> volatile_uncorrected;
  std::optional<uint64_t> aggregate_corrected;
  std::optional<uint64_t> aggregate_uncorrected;
};

// Dynamic page retirement (before Ampere): nvmlDeviceGetRetiredPages_v2's count per cause and
// nvmlDeviceGetRetiredPagesPendingStatus.
struct RetiredPages {
  std::optional<unsigned>
      multiple_single_bit;             // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_...
  std::optional<unsigned> double_bit;  // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
  std::optional<bool> pending;         // retirement waits for a driver reload
};

// One NVLink: nvmlDeviceGetNvLinkState and nvmlDeviceGetNvLinkErrorCounter's data-link
// counters (unsupported on Blackwell+, which report field values instead).
struct NvLinkReading {
  unsigned link = 0;
  bool active = false;
  std::optional<uint64_t> replay_errors;    // NVML_NVLINK_ERROR_DL_REPLAY
  std::optional<uint64_t> recovery_errors;  // NVML_NVLINK_ERROR_DL_RECOVERY
  std::optional<uint64_t> crc_flit_errors;  // NVML_NVLINK_ERROR_DL_CRC_FLIT
  std::optional<uint64_t> crc_data_errors;  // NVML_NVLINK_ERROR_DL_CRC_DATA
};

// The PCIe link. "Max" is the lesser of what the device and the system support; an idle GPU may
// lower its current generation to save power, but not its width.
struct PcieReading {
  std::optional<unsigned> current_generation;
  std::optional<unsigned> max_generation;
  std::optional<unsigned> current_width;  // lanes
  std::optional<unsigned> max_width;
  std::optional<unsigned> replay_count;  // nvmlDeviceGetPcieReplayCounter
};

// A call that failed for another reason than "not supported".
struct NvmlCallError {
  std::string call;      // the entry point, with what it asked: "nvmlDeviceGetNvLinkState(link 3)"
  abi::Return code = 0;  // nvmlReturn_t
  std::string message;   // "nvmlDeviceGetNvLinkState(device 0, link 3): Unknown Error"
};

struct GpuHealthReading {
  unsigned index = 0;  // NVML's device index, as for Nvml::Device
  std::string uuid;    // empty when it could not be read (see errors)
  bool lost = false;   // a call answered NVML_ERROR_GPU_IS_LOST; the calls after it were skipped
  std::optional<std::string> pci_bus_id;  // nvmlDeviceGetPciInfo_v3's busId, "00000000:18:00.0"
  std::optional<RemappedRows> remapped_rows;
  EccCounts ecc;
  RetiredPages retired_pages;
  // Links 0, 1, ... until the driver answers INVALID_ARGUMENT or NOT_SUPPORTED for the next
  // one; nullopt when it does so for link 0 (no NVLink). Another error also ends the walk (it
  // is in errors), keeping the links read before it.
  std::optional<std::vector<NvLinkReading>> nvlinks;
  PcieReading pcie;
  std::optional<GpuRecoveryAction> recovery_action;
  // The calls the driver cannot answer, each once: "nvmlDeviceGetRemappedRows",
  // "nvmlDeviceGetTotalEccErrors(volatile corrected)", "nvmlDeviceGetFieldValues(
  // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)".
  std::vector<std::string> not_supported;
  std::vector<NvmlCallError> errors;  // in call order
};

// Reads everything above for device `index`. Never fails as a whole: what went wrong is in the
// reading. NVML may block on a sick GPU, so the agent runs this under a DeadlineRunner
// (deadline.h) with the Nvml kept alive by the task (see there).
GpuHealthReading ReadGpuHealth(const Nvml& nvml, unsigned index);

}  // namespace quotient::nvml
