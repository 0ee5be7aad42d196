// Memory queries: applications (and frameworks' caching allocators) size themselves by these,
// so they report the logical GPU (hook_support.h).
#include <cstdint>

#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  const auto driver = real<decltype(&cuMemGetInfo_v2)>(Hook::cuMemGetInfo_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(free, total);
  if (result != CUDA_SUCCESS || free == nullptr || total == nullptr) return result;
  std::uint64_t logical_free = *free;
  std::uint64_t logical_total = *total;
  quotient::interposer::clamp_memory_info(logical_free, logical_total);
  *free = logical_free;  // never above the driver's own (size_t) answer
  *total = logical_total;
  return result;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  const auto driver = real<decltype(&cuDeviceTotalMem_v2)>(Hook::cuDeviceTotalMem_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(bytes, device);
  if (result == CUDA_SUCCESS && bytes != nullptr) {
    *bytes = quotient::interposer::clamp_total(device, *bytes);
  }
  return result;
}

}  // extern "C"
