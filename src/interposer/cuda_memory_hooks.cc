// Device-memory allocation and free: linear, pitched, managed and stream-ordered.
#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

constexpr std::uint64_t kPitchAlignment = 512;  // the largest texture pitch alignment in use

// One allocation returned through `dptr` by `driver_call`, charged on the current device.
template <class DriverCall>
CUresult allocate_on_current_device(const char* api, CUdeviceptr* dptr, size_t bytes,
                                    DriverCall&& driver_call) {
  const auto device = current_device();
  if (dptr == nullptr || !device) return driver_call();
  return charged_call(api, *device, bytes, AllocationKind::kDevicePointer, [&] {
    const CUresult result = driver_call();
    return DriverOutcome{result, result == CUDA_SUCCESS ? *dptr : 0};
  });
}

}  // namespace
}  // namespace quotient::interposer

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

// The pitch is the driver's choice: charge an upper estimate (width rounded up to the largest
// alignment) before the call, then correct it to pitch × height.
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height,
                            unsigned int element_size) {
  using namespace quotient::interposer;
  const auto driver = real<decltype(&cuMemAllocPitch_v2)>(Hook::cuMemAllocPitch_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const auto device = current_device();
  if (dptr == nullptr || pitch == nullptr || !device) {
    return driver(dptr, pitch, width, height, element_size);
  }
  const std::uint64_t estimate =
      (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment * height;
  const CUresult result =
      charged_call("cuMemAllocPitch_v2", *device, estimate, AllocationKind::kDevicePointer, [&] {
        const CUresult driver_result = driver(dptr, pitch, width, height, element_size);
        return DriverOutcome{driver_result, driver_result == CUDA_SUCCESS ? *dptr : 0};
      });
  if (result == CUDA_SUCCESS) {
    Accounting& accounting = Accounting::instance();
    if (auto allocation = accounting.take(AllocationKind::kDevicePointer, *dptr)) {
      const std::uint64_t actual = std::uint64_t{*pitch} * height;
      accounting.adjust(*device, allocation->bytes, actual);
      accounting.record(AllocationKind::kDevicePointer, *dptr, Allocation{actual, *device});
    }
  }
  return result;
}

// Managed memory may migrate to the device at any time: charged in full.
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  const auto driver = real<decltype(&cuMemAllocManaged)>(Hook::cuMemAllocManaged);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocManaged", dptr, bytesize, [&] { return driver(dptr, bytesize, flags); });
}

// Stream-ordered allocations are charged at their requested size when issued and refunded when
// their free is issued (memory a pool keeps reserved after frees is not counted: see README).
CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocAsync)>(Hook::cuMemAllocAsync);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocAsync", dptr, bytesize, [&] { return driver(dptr, bytesize, stream); });
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocAsync_ptsz)>(Hook::cuMemAllocAsync_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocAsync_ptsz", dptr, bytesize, [&] { return driver(dptr, bytesize, stream); });
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocFromPoolAsync)>(Hook::cuMemAllocFromPoolAsync);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocFromPoolAsync", dptr, bytesize,
      [&] { return driver(dptr, bytesize, pool, stream); });
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream stream) {
  const auto driver =
      real<decltype(&cuMemAllocFromPoolAsync_ptsz)>(Hook::cuMemAllocFromPoolAsync_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_on_current_device(
      "cuMemAllocFromPoolAsync_ptsz", dptr, bytesize,
      [&] { return driver(dptr, bytesize, pool, stream); });
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  const auto driver = real<decltype(&cuMemFree_v2)>(Hook::cuMemFree_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kDevicePointer, dptr,
                                             [&] { return driver(dptr); });
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream) {
  const auto driver = real<decltype(&cuMemFreeAsync)>(Hook::cuMemFreeAsync);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kDevicePointer, dptr,
                                             [&] { return driver(dptr, stream); });
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream) {
  const auto driver = real<decltype(&cuMemFreeAsync_ptsz)>(Hook::cuMemFreeAsync_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::refunded_call(AllocationKind::kDevicePointer, dptr,
                                             [&] { return driver(dptr, stream); });
}

}  // extern "C"
