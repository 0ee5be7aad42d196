// The v1 entry points of the pre-3.2 ABI (32-bit device pointers and sizes). cuda.h has mapped
// cuMemAlloc to cuMemAlloc_v2 since CUDA 3.2, but the driver still exports the v1 names, and
// cuGetProcAddress hands them out for an old cudaVersion ("cuMemAlloc" with 3000 -> the v1
// cuMemAlloc): left unwrapped they would allocate beyond the limit. Same charges as v2.
#include <cstdint>

#include "interposer/array_size.h"
#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

using quotient::interposer::AllocationKind;
using quotient::interposer::ArrayShape;
using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuMemAlloc(CUdeviceptr_v1* dptr, unsigned int bytesize) {
  const auto driver = real<decltype(&cuMemAlloc)>(Hook::cuMemAlloc);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device("cuMemAlloc", dptr, bytesize,
                                                          [&] { return driver(dptr, bytesize); });
}

CUresult cuMemAllocPitch(CUdeviceptr_v1* dptr, unsigned int* pitch, unsigned int width,
                         unsigned int height, unsigned int element_size) {
  const auto driver = real<decltype(&cuMemAllocPitch)>(Hook::cuMemAllocPitch);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_pitched("cuMemAllocPitch", dptr, pitch, width, height, [&] {
    return driver(dptr, pitch, width, height, element_size);
  });
}

// v1 and v2 pointers share one key space: the value is the same address either way.
CUresult cuMemFree(CUdeviceptr_v1 dptr) {
  const auto driver = real<decltype(&cuMemFree)>(Hook::cuMemFree);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kDevicePointer, dptr,
                                             [&] { return driver(dptr); });
}

CUresult cuMemGetInfo(unsigned int* free, unsigned int* total) {
  const auto driver = real<decltype(&cuMemGetInfo)>(Hook::cuMemGetInfo);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(free, total);
  if (result != CUDA_SUCCESS || free == nullptr || total == nullptr) return result;
  std::uint64_t logical_free = *free;
  std::uint64_t logical_total = *total;
  quotient::interposer::clamp_memory_info(logical_free, logical_total);
  // Clamping only lowers the driver's 32-bit answers, so they still fit.
  *free = static_cast<unsigned int>(logical_free);
  *total = static_cast<unsigned int>(logical_total);
  return result;
}

CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice device) {
  const auto driver = real<decltype(&cuDeviceTotalMem)>(Hook::cuDeviceTotalMem);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(bytes, device);
  if (result == CUDA_SUCCESS && bytes != nullptr) {
    *bytes = static_cast<unsigned int>(quotient::interposer::clamp_total(device, *bytes));
  }
  return result;
}

CUresult cuArrayCreate(CUarray* array, const CUDA_ARRAY_DESCRIPTOR_v1* desc) {
  const auto driver = real<decltype(&cuArrayCreate)>(Hook::cuArrayCreate);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  const ArrayShape shape{desc->Width, desc->Height, 0, desc->Format, desc->NumChannels, 0};
  return quotient::interposer::create_on_current_device(
      "cuArrayCreate", AllocationKind::kArray, array, quotient::interposer::array_bytes(shape),
      [&] { return driver(array, desc); });
}

CUresult cuArray3DCreate(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc) {
  const auto driver = real<decltype(&cuArray3DCreate)>(Hook::cuArray3DCreate);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  const ArrayShape shape{desc->Width,  desc->Height,      desc->Depth,
                         desc->Format, desc->NumChannels, desc->Flags};
  return quotient::interposer::create_on_current_device(
      "cuArray3DCreate", AllocationKind::kArray, array, quotient::interposer::array_bytes(shape),
      [&] { return driver(array, desc); });
}

}  // extern "C"
