// CUDA arrays and the virtual-memory API. cuMemCreate creates the physical memory and is what
// is charged; cuMemMap only maps it into an address range, so it passes through uncharged.
// Arrays are charged by their descriptor (array_size.h).
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

CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc) {
  const auto driver = real<decltype(&cuArrayCreate_v2)>(Hook::cuArrayCreate_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  const ArrayShape shape{desc->Width, desc->Height, 0, desc->Format, desc->NumChannels, 0};
  return quotient::interposer::create_on_current_device(
      "cuArrayCreate_v2", AllocationKind::kArray, array, quotient::interposer::array_bytes(shape),
      [&] { return driver(array, desc); });
}

CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  const auto driver = real<decltype(&cuArray3DCreate_v2)>(Hook::cuArray3DCreate_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(array, desc);
  const ArrayShape shape{desc->Width,  desc->Height,      desc->Depth,
                         desc->Format, desc->NumChannels, desc->Flags};
  return quotient::interposer::create_on_current_device(
      "cuArray3DCreate_v2", AllocationKind::kArray, array, quotient::interposer::array_bytes(shape),
      [&] { return driver(array, desc); });
}

CUresult cuArrayDestroy(CUarray array) {
  const auto driver = real<decltype(&cuArrayDestroy)>(Hook::cuArrayDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kArray,
                                             quotient::interposer::handle_key(array),
                                             [&] { return driver(array); });
}

// Every level of a mipmapped array is allocated with it.
CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle, const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                unsigned int levels) {
  const auto driver = real<decltype(&cuMipmappedArrayCreate)>(Hook::cuMipmappedArrayCreate);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (desc == nullptr) return driver(handle, desc, levels);
  const ArrayShape shape{desc->Width,  desc->Height,      desc->Depth,
                         desc->Format, desc->NumChannels, desc->Flags};
  return quotient::interposer::create_on_current_device(
      "cuMipmappedArrayCreate", AllocationKind::kMipmappedArray, handle,
      quotient::interposer::mipmapped_array_bytes(shape, levels),
      [&] { return driver(handle, desc, levels); });
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle) {
  const auto driver = real<decltype(&cuMipmappedArrayDestroy)>(Hook::cuMipmappedArrayDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kMipmappedArray,
                                             quotient::interposer::handle_key(handle),
                                             [&] { return driver(handle); });
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
