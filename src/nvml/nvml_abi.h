// The C ABI of the NVML entry points quotient_nvml calls, declared here because no NVIDIA
// headers exist on the build machines (as interposer/cuda_abi.h does for the interposer). Types,
// values and signatures follow nvml.h (CUDA 12/13); only what we call is declared.
//
// Declared in a namespace, not at global scope like cuda_abi.h, so that one translation unit may
// include both: the names differ from nvml.h's only in where they live, never in layout.
#pragma once

namespace quotient::nvml::abi {

// nvmlReturn_t is an enum in nvml.h, int-sized on every ABI NVML ships for.
using Return = int;
using Device = struct nvmlDevice_st*;

inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorDriverNotLoaded = 9;

// NVML_DEVICE_UUID_V2_BUFFER_SIZE and NVML_DEVICE_NAME_V2_BUFFER_SIZE: enough for every device.
inline constexpr unsigned int kUuidBufferSize = 96;
inline constexpr unsigned int kNameBufferSize = 96;

// nvmlMemory_t (v1): what nvmlDeviceGetMemoryInfo fills, in bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// The signatures of the entry points, in nvml.h's order of arguments.
using InitFn = Return (*)();                                         // nvmlInit_v2
using ShutdownFn = Return (*)();                                     // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                       // nvmlErrorString
using DeviceGetCountFn = Return (*)(unsigned int*);                  // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);  // ..._v2
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);   // GetUUID, GetName
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);           // nvmlDeviceGetMemoryInfo

}  // namespace quotient::nvml::abi
