// Device-memory allocation and free: linear, pitched and managed (stream-ordered:
// cuda_pool_hooks.cc).
#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

using quotient::interposer::AllocationKind;
using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  const auto driver = real<decltype(&cuMemAlloc_v2)>(Hook::cuMemAlloc_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device("cuMemAlloc_v2", dptr, bytesize,
                                                          [&] { return driver(dptr, bytesize); });
}

// The pitch is the driver's choice: charged as an upper estimate, then corrected (hook_support.h).
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height,
                            unsigned int element_size) {
  const auto driver = real<decltype(&cuMemAllocPitch_v2)>(Hook::cuMemAllocPitch_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_pitched(
      "cuMemAllocPitch_v2", dptr, pitch, width, height,
      [&] { return driver(dptr, pitch, width, height, element_size); });
}

// Managed memory may migrate to the device at any time: charged in full.
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  const auto driver = real<decltype(&cuMemAllocManaged)>(Hook::cuMemAllocManaged);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocManaged", dptr, bytesize, [&] { return driver(dptr, bytesize, flags); });
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  const auto driver = real<decltype(&cuMemFree_v2)>(Hook::cuMemFree_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kDevicePointer, dptr,
                                             [&] { return driver(dptr); });
}

}  // extern "C"
