// CUDA arrays and the virtual-memory API. cuMemCreate creates the physical memory and is what
// is charged; cuMemMap only maps it into an address range, so it passes through uncharged.
#include <cstdint>

#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

std::uint64_t element_bytes(CUarray_format format) {
  switch (format) {
    case 0x01:  // UNSIGNED_INT8
    case 0x08:  // SIGNED_INT8
      return 1;
    case 0x02:  // UNSIGNED_INT16
    case 0x09:  // SIGNED_INT16
    case 0x10:  // HALF
      return 2;
    default:  // 32-bit integers, FLOAT, and formats we do not model (charged as 4 bytes)
      return 4;
  }
}

std::uint64_t at_least_one(std::size_t extent) { return extent == 0 ? 1 : extent; }

// Estimated size: width × height × depth × channels × element size, without the driver's
// padding or tiling (cuArrayGetMemoryRequirements would be exact; see README).
std::uint64_t array_bytes(std::size_t width, std::size_t height, std::size_t depth,
                          CUarray_format format, unsigned int channels) {
  return at_least_one(width) * at_least_one(height) * at_least_one(depth) * element_bytes(format) *
         at_least_one(channels);
}

std::uint64_t array_key(CUarray array) { return reinterpret_cast<std::uintptr_t>(array); }

template <class DriverCall>
CUresult create_array(const char* api, CUarray* array, std::uint64_t bytes,
                      DriverCall&& driver_call) {
  const auto device = current_device();
  if (array == nullptr || !device) return driver_call();
  return charged_call(api, *device, bytes, AllocationKind::kArray, [&] {
    const CUresult result = driver_call();
    return DriverOutcome{result, result == CUDA_SUCCESS ? array_key(*array) : 0};
  });
}

}  // namespace
}  // namespace quotient::interposer

using quotient::interposer::AllocationKind;
using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc) {
  const auto driver = real<decltype(&cuArrayCreate_v2)>(Hook::cuArrayCreate_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  return quotient::interposer::create_array(
      "cuArrayCreate_v2", array,
      quotient::interposer::array_bytes(desc->Width, desc->Height, 1, desc->Format,
                                        desc->NumChannels),
      [&] { return driver(array, desc); });
}

CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  const auto driver = real<decltype(&cuArray3DCreate_v2)>(Hook::cuArray3DCreate_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  return quotient::interposer::create_array(
      "cuArray3DCreate_v2", array,
      quotient::interposer::array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format,
                                        desc->NumChannels),
      [&] { return driver(array, desc); });
}

CUresult cuArrayDestroy(CUarray array) {
  const auto driver = real<decltype(&cuArrayDestroy)>(Hook::cuArrayDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kArray,
                                             quotient::interposer::array_key(array),
                                             [&] { return driver(array); });
}

// Only device-located physical memory counts; its device is the one named in the properties
// (not the current context's: PyTorch's expandable segments create memory from threads that
// have no context, HAMi-core #169).
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags) {
  const auto driver = real<decltype(&cuMemCreate)>(Hook::cuMemCreate);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (handle == nullptr || prop == nullptr || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    return driver(handle, size, prop, flags);
  }
  return quotient::interposer::charged_call(
      "cuMemCreate", prop->location.id, size, AllocationKind::kVmmHandle, [&] {
        const CUresult result = driver(handle, size, prop, flags);
        return quotient::interposer::DriverOutcome{result, result == CUDA_SUCCESS ? *handle : 0};
      });
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  const auto driver = real<decltype(&cuMemRelease)>(Hook::cuMemRelease);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kVmmHandle, handle,
                                             [&] { return driver(handle); });
}

}  // extern "C"
