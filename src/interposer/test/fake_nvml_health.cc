// The fake NVML's health entry points (what the node health agent reads), answering from the
// device state of fake_nvml_state.h. Types and values mirror nvml.h (NVML 13.0.39), declared
// here on their own rather than taken from src/nvml/nvml_abi.h, so that a mistake in one is not
// silently shared by the other.
#include <cstddef>
#include <cstring>
#include <string>

#include "interposer/test/fake_nvml_state.h"

namespace {

using fake_nvml::BeginDeviceCall;
using fake_nvml::DeviceCall;

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
static_assert(sizeof(nvmlPciInfo_t) == 68);

union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40 && offsetof(nvmlFieldValue_t, value) == 32);

constexpr unsigned int kNvLinkMaxLinks = 18;           // NVML_NVLINK_MAX_LINKS
constexpr unsigned int kFieldGpuRecoveryAction = 230;  // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
constexpr int kValueTypeUnsignedInt = 1;               // NVML_VALUE_TYPE_UNSIGNED_INT

// Copies `text` into a fixed buffer, truncating as NVML's snprintf would.
template <size_t N>
void CopyInto(char (&buffer)[N], const std::string& text) {
  const size_t length = text.size() < N - 1 ? text.size() : N - 1;
  std::memcpy(buffer, text.data(), length);
  buffer[length] = '\0';
}

// The NVLink a call names, or the code the real driver gives for one past the device's links:
// NOT_SUPPORTED on a GPU without NVLink, INVALID_ARGUMENT beyond its last link.
nvmlReturn_t FindLink(const fake_nvml::Device& device, unsigned int link,
                      const fake_nvml::NvLink** out) {
  if (device.nvlinks.empty()) return fake_nvml::kErrorNotSupported;
  if (link >= device.nvlinks.size() || link >= kNvLinkMaxLinks) return NVML_ERROR_INVALID_ARGUMENT;
  *out = &device.nvlinks[link];
  return NVML_SUCCESS;
}

nvmlReturn_t AnswerUnsigned(nvmlDevice_t handle, const char* name, unsigned int* value,
                            unsigned fake_nvml::Device::*member) {
  const DeviceCall call = BeginDeviceCall(handle, name);
  if (call.code != NVML_SUCCESS) return call.code;
  if (value == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *value = call.device->*member;
  return NVML_SUCCESS;
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t handle, nvmlPciInfo_t* pci) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetPciInfo_v3");
  if (call.code != NVML_SUCCESS) return call.code;
  if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *pci = nvmlPciInfo_t{};
  CopyInto(pci->busId, call.device->bus_id);
  // The legacy form drops the domain's upper half: "0000:18:00.0".
  const std::string& bus_id = call.device->bus_id;
  CopyInto(pci->busIdLegacy, bus_id.size() > 4 ? bus_id.substr(4) : bus_id);
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t handle, unsigned int* corr_rows,
                                                   unsigned int* unc_rows, unsigned int* is_pending,
                                                   unsigned int* failure_occurred) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetRemappedRows");
  if (call.code != NVML_SUCCESS) return call.code;
  if (!corr_rows || !unc_rows || !is_pending || !failure_occurred) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *corr_rows = call.device->remapped_corr;
  *unc_rows = call.device->remapped_unc;
  *is_pending = call.device->remap_pending ? 1 : 0;
  *failure_occurred = call.device->remap_failure ? 1 : 0;
  return NVML_SUCCESS;
}

// error_type: NVML_MEMORY_ERROR_TYPE_CORRECTED 0 / UNCORRECTED 1; counter_type:
// NVML_VOLATILE_ECC 0 / NVML_AGGREGATE_ECC 1.
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t handle, int error_type,
                                                     int counter_type, unsigned long long* count) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetTotalEccErrors");
  if (call.code != NVML_SUCCESS) return call.code;
  if (count == nullptr || error_type < 0 || error_type > 1 || counter_type < 0 ||
      counter_type > 1) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const fake_nvml::Device& device = *call.device;
  const unsigned long long counts[2][2] = {
      {device.ecc_volatile_corrected, device.ecc_volatile_uncorrected},
      {device.ecc_aggregate_corrected, device.ecc_aggregate_uncorrected}};
  *count = counts[counter_type][error_type];
  return NVML_SUCCESS;
}

// As the driver: *page_count in is the buffers' size, out the number of pages; too small a
// buffer answers INSUFFICIENT_SIZE with the count. Addresses are made up (page n at n * 4 KiB).
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t handle, int cause,
                                                      unsigned int* page_count,
                                                      unsigned long long* addresses,
                                                      unsigned long long* timestamps) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetRetiredPages_v2");
  if (call.code != NVML_SUCCESS) return call.code;
  if (page_count == nullptr || cause < 0 || cause > 1) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned pages = cause == 0 ? call.device->retired_sbe : call.device->retired_dbe;
  if (*page_count < pages) {
    *page_count = pages;
    return fake_nvml::kErrorInsufficientSize;
  }
  if (pages > 0 && addresses == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned page = 0; page < pages; ++page) {
    addresses[page] = (page + 1ULL) << 12;
    if (timestamps != nullptr) timestamps[page] = 0;
  }
  *page_count = pages;
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t handle,
                                                                int* is_pending) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetRetiredPagesPendingStatus");
  if (call.code != NVML_SUCCESS) return call.code;
  if (is_pending == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *is_pending = call.device->retired_pending ? 1 : 0;  // NVML_FEATURE_ENABLED / DISABLED
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t handle, unsigned int link,
                                                  int* is_active) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetNvLinkState");
  if (call.code != NVML_SUCCESS) return call.code;
  const fake_nvml::NvLink* state = nullptr;
  if (nvmlReturn_t found = FindLink(*call.device, link, &state); found != NVML_SUCCESS) {
    return found;
  }
  if (is_active == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *is_active = state->active ? 1 : 0;
  return NVML_SUCCESS;
}

// counter: NVML_NVLINK_ERROR_DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2, DL_CRC_DATA 3.
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t handle, unsigned int link,
                                                         int counter, unsigned long long* value) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetNvLinkErrorCounter");
  if (call.code != NVML_SUCCESS) return call.code;
  const fake_nvml::NvLink* state = nullptr;
  if (nvmlReturn_t found = FindLink(*call.device, link, &state); found != NVML_SUCCESS) {
    return found;
  }
  if (value == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  switch (counter) {
    case 0:
      *value = state->replay;
      return NVML_SUCCESS;
    case 1:
      *value = state->recovery;
      return NVML_SUCCESS;
    case 2:
      *value = state->crc_flit;
      return NVML_SUCCESS;
    case 3:
      *value = state->crc_data;
      return NVML_SUCCESS;
    default:
      return NVML_ERROR_INVALID_ARGUMENT;
  }
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t handle,
                                                             unsigned int* value) {
  return AnswerUnsigned(handle, "nvmlDeviceGetCurrPcieLinkGeneration", value,
                        &fake_nvml::Device::pcie_cur_gen);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t handle,
                                                            unsigned int* value) {
  return AnswerUnsigned(handle, "nvmlDeviceGetMaxPcieLinkGeneration", value,
                        &fake_nvml::Device::pcie_max_gen);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t handle, unsigned int* value) {
  return AnswerUnsigned(handle, "nvmlDeviceGetCurrPcieLinkWidth", value,
                        &fake_nvml::Device::pcie_cur_width);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t handle, unsigned int* value) {
  return AnswerUnsigned(handle, "nvmlDeviceGetMaxPcieLinkWidth", value,
                        &fake_nvml::Device::pcie_max_width);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t handle, unsigned int* value) {
  return AnswerUnsigned(handle, "nvmlDeviceGetPcieReplayCounter", value,
                        &fake_nvml::Device::pcie_replay);
}

// Answers the recovery-action field; any other field NOT_SUPPORTED, as a driver that does not
// know it. "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION" in a device's unsupported list (or errors map)
// fails that field alone while the call itself succeeds, as a driver older than the field.
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t handle, int count,
                                                  nvmlFieldValue_t* values) {
  const DeviceCall call = BeginDeviceCall(handle, "nvmlDeviceGetFieldValues");
  if (call.code != NVML_SUCCESS) return call.code;
  if (count < 0 || (count > 0 && values == nullptr)) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& field = values[i];
    field.timestamp = 0;
    field.latencyUsec = 0;
    if (field.fieldId != kFieldGpuRecoveryAction) {
      field.nvmlReturn = fake_nvml::kErrorNotSupported;
      continue;
    }
    field.nvmlReturn =
        fake_nvml::InjectedError(*call.device, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION");
    if (field.nvmlReturn != NVML_SUCCESS) continue;
    field.valueType = kValueTypeUnsignedInt;
    field.value.uiVal = call.device->recovery_action;
  }
  return NVML_SUCCESS;
}
