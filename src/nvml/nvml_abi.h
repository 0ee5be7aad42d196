// The C ABI of the NVML entry points quotient_nvml calls, declared here because no NVIDIA
// headers exist on the build machines (as interposer/cuda_abi.h does for the interposer). Types,
// values and signatures follow nvml.h; only what we call is declared.
//
// Checked against nvml.h of NVML 13.0.39 (CUDA 13.0, "NVML_API_VERSION 13"), as vendored in
// go-nvml's pkg/nvml/nvml.h. The layouts used here are unchanged since NVML 11 (the 11.x header
// has the same nvmlPciInfo_t, nvmlEventData_t, enums and error codes); only the values added
// later say so below.
//
// Declared in a namespace, not at global scope like cuda_abi.h, so that one translation unit may
// include both: the names differ from nvml.h's only in where they live, never in layout.
#pragma once

#include <cstddef>

namespace quotient::nvml::abi {

// nvmlReturn_t is an enum in nvml.h, int-sized on every ABI NVML ships for.
using Return = int;
// nvml.h: typedef struct nvmlDevice_st* nvmlDevice_t (an opaque pointer).
using Device = struct nvmlDevice_st*;
// nvml.h: typedef struct nvmlEventSet_st* nvmlEventSet_t (an opaque pointer).
using EventSet = struct nvmlEventSet_st*;

// nvmlReturn_t values.
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;

// NVML_DEVICE_UUID_V2_BUFFER_SIZE and NVML_DEVICE_NAME_V2_BUFFER_SIZE: enough for every device.
inline constexpr unsigned int kUuidBufferSize = 96;
inline constexpr unsigned int kNameBufferSize = 96;

// nvmlMemory_t (v1): what nvmlDeviceGetMemoryInfo fills, in bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlPciInfo_t, filled by nvmlDeviceGetPciInfo_v3. busId is "domain:bus:device.function",
// e.g. "00000000:18:00.0" (NVML_DEVICE_PCI_BUS_ID_FMT "%08X:%02X:%02X.0").
inline constexpr std::size_t kPciBusIdBufferSize = 32;  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
inline constexpr std::size_t kPciBusIdLegacyBufferSize =
    16;  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
struct PciInfo {
  char busIdLegacy[kPciBusIdLegacyBufferSize];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[kPciBusIdBufferSize];
};
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, busId) == 36);

// nvmlEnableState_t.
inline constexpr int kFeatureDisabled = 0;
inline constexpr int kFeatureEnabled = 1;

// nvmlMemoryErrorType_t and nvmlEccCounterType_t, for nvmlDeviceGetTotalEccErrors.
inline constexpr int kMemoryErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
inline constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int kVolatileEcc = 0;             // NVML_VOLATILE_ECC: reset on driver load
inline constexpr int kAggregateEcc = 1;            // NVML_AGGREGATE_ECC: device lifetime

// nvmlPageRetirementCause_t.
inline constexpr int kRetirementMultipleSingleBitEcc = 0;  // ..._MULTIPLE_SINGLE_BIT_ECC_ERRORS
inline constexpr int kRetirementDoubleBitEcc = 1;          // ..._DOUBLE_BIT_ECC_ERROR

// NVML_NVLINK_MAX_LINKS (18 in the 12.2.140 and 13.0.39 headers, 12 in 11.x) and
// nvmlNvLinkErrorCounter_t.
inline constexpr unsigned int kNvLinkMaxLinks = 18;
inline constexpr int kNvLinkErrorDlReplay = 0;
inline constexpr int kNvLinkErrorDlRecovery = 1;
inline constexpr int kNvLinkErrorDlCrcFlit = 2;
inline constexpr int kNvLinkErrorDlCrcData = 3;

// nvmlValueType_t and nvmlValue_t, inside nvmlFieldValue_t.
inline constexpr int kValueTypeDouble = 0;
inline constexpr int kValueTypeUnsignedInt = 1;
inline constexpr int kValueTypeUnsignedLong = 2;
inline constexpr int kValueTypeUnsignedLongLong = 3;
inline constexpr int kValueTypeSignedLongLong = 4;
inline constexpr int kValueTypeSignedInt = 5;
inline constexpr int kValueTypeUnsignedShort = 6;
union Value {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

// nvmlFieldValue_t: the caller sets fieldId (and scopeId); NVML fills the rest, with a return
// code per field (nvmlReturn) besides the call's own.
struct FieldValue {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;  // nvmlValueType_t
  Return nvmlReturn;
  Value value;
};
static_assert(sizeof(FieldValue) == 40 && offsetof(FieldValue, value) == 32);

// NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: 230 in nvml.h 13.0.39 (field 271 there is
// NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_UP_RATE). Drivers without the field answer it with
// an error in the field's own nvmlReturn (expected: NVML_ERROR_NOT_SUPPORTED; unverified).
inline constexpr unsigned int kFieldGpuRecoveryAction = 230;

// Event types (nvmlEventType*, a bit mask) and nvmlEventData_t.
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
struct EventData {
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID for kEventTypeXidCriticalError; 999 = unknown XID
  unsigned int gpuInstanceId;    // MIG; 0xFFFFFFFF when not attributable
  unsigned int computeInstanceId;
};
static_assert(sizeof(EventData) == 32 && offsetof(EventData, gpuInstanceId) == 24);

// The signatures of the entry points, in nvml.h's order of arguments.
using InitFn = Return (*)();                                         // nvmlInit_v2
using ShutdownFn = Return (*)();                                     // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                       // nvmlErrorString
using DeviceGetCountFn = Return (*)(unsigned int*);                  // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);  // ..._v2
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);   // GetUUID, GetName
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);           // nvmlDeviceGetMemoryInfo

// Health reads (gpu_health.h). enum parameters are int-sized, as nvmlReturn_t.
using DeviceGetPciInfoFn = Return (*)(Device, PciInfo*);  // nvmlDeviceGetPciInfo_v3
// nvmlDeviceGetRemappedRows(device, corrRows, uncRows, isPending, failureOccurred)
using DeviceGetRemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*,
                                           unsigned int*);
// nvmlDeviceGetTotalEccErrors(device, nvmlMemoryErrorType_t, nvmlEccCounterType_t, eccCounts)
using DeviceGetTotalEccErrorsFn = Return (*)(Device, int, int, unsigned long long*);
// nvmlDeviceGetRetiredPages_v2(device, cause, pageCount, addresses, timestamps)
using DeviceGetRetiredPagesFn = Return (*)(Device, int, unsigned int*, unsigned long long*,
                                           unsigned long long*);
// nvmlDeviceGetRetiredPagesPendingStatus(device, nvmlEnableState_t* isPending)
using DeviceGetEnableStateFn = Return (*)(Device, int*);
// nvmlDeviceGetNvLinkState(device, link, nvmlEnableState_t* isActive)
using DeviceGetNvLinkStateFn = Return (*)(Device, unsigned int, int*);
// nvmlDeviceGetNvLinkErrorCounter(device, link, nvmlNvLinkErrorCounter_t, counterValue)
using DeviceGetNvLinkErrorCounterFn = Return (*)(Device, unsigned int, int, unsigned long long*);
// nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}, nvmlDeviceGetPcieReplayCounter
using DeviceGetUnsignedFn = Return (*)(Device, unsigned int*);
// nvmlDeviceGetFieldValues(device, valuesCount, values)
using DeviceGetFieldValuesFn = Return (*)(Device, int, FieldValue*);

// Events (xid_events.h).
using EventSetCreateFn = Return (*)(EventSet*);  // nvmlEventSetCreate
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long,
                                          EventSet);                    // ...RegisterEvents
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);  // nvmlEventSetWait_v2
using EventSetFreeFn = Return (*)(EventSet);                            // nvmlEventSetFree

}  // namespace quotient::nvml::abi
