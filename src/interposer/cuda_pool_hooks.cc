// Stream-ordered allocation and memory pools (pool_charges.h): an allocation is charged its size
// when issued, less what its pool's retained memory covers; a free refunds what the pool does
// not retain under its release threshold; trimming, lowering the threshold or destroying the pool
// refunds the retained memory.
#include <cstdint>

#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

// The pool cuMemAllocAsync draws from: the device's current memory pool; 0 if unknown (then the
// allocation is charged as a plain one and its free refunds in full).
std::uint64_t current_pool(int device) {
  const auto get_pool = real<CUresult (*)(CUmemoryPool*, CUdevice)>(Helper::cuDeviceGetMemPool);
  CUmemoryPool pool = nullptr;
  if (get_pool == nullptr || get_pool(&pool, device) != CUDA_SUCCESS) return 0;
  return handle_key(pool);
}

// One stream-ordered allocation from `pool` (0: the device's current pool).
template <class DriverCall>
CUresult allocate_from_pool(const char* api, CUdeviceptr* dptr, std::uint64_t bytes,
                            std::uint64_t pool, DriverCall&& driver_call) {
  const auto device = current_device();
  Accounting& accounting = Accounting::instance();
  if (dptr == nullptr || !device || !accounting.limit(*device)) return driver_call();
  if (pool == 0) pool = current_pool(*device);
  if (pool == 0) return allocate_on_current_device(api, dptr, bytes, driver_call);
  const std::uint64_t covered = accounting.update_pool_charges(
      [&](PoolCharges& pools) { return pools.take_cover(pool, *device, bytes); });
  auto give_back_cover = [&] {
    accounting.update_pool_charges([&](PoolCharges& pools) {
      pools.return_cover(pool, covered);
      return 0;
    });
  };
  if (accounting.admit(api, *device, bytes - covered) == Admission::kRefused) {
    give_back_cover();
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  const CUresult result = driver_call();
  if (result != CUDA_SUCCESS) {
    accounting.cancel(*device, bytes - covered);
    give_back_cover();
    return result;
  }
  accounting.update_pool_charges([&](PoolCharges& pools) {
    pools.allocated(pool, bytes);
    return 0;
  });
  accounting.record(AllocationKind::kDevicePointer, *dptr, Allocation{bytes, *device, pool});
  return result;
}

}  // namespace
}  // namespace quotient::interposer

using quotient::interposer::AllocationKind;
using quotient::interposer::handle_key;
using quotient::interposer::Hook;
using quotient::interposer::PoolCharges;
using quotient::interposer::real;

extern "C" {

CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocAsync)>(Hook::cuMemAllocAsync);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_from_pool("cuMemAllocAsync", dptr, bytesize, 0,
                                                  [&] { return driver(dptr, bytesize, stream); });
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocAsync_ptsz)>(Hook::cuMemAllocAsync_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_from_pool("cuMemAllocAsync_ptsz", dptr, bytesize, 0,
                                                  [&] { return driver(dptr, bytesize, stream); });
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream stream) {
  const auto driver = real<decltype(&cuMemAllocFromPoolAsync)>(Hook::cuMemAllocFromPoolAsync);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_from_pool(
      "cuMemAllocFromPoolAsync", dptr, bytesize, handle_key(pool),
      [&] { return driver(dptr, bytesize, pool, stream); });
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream stream) {
  const auto driver =
      real<decltype(&cuMemAllocFromPoolAsync_ptsz)>(Hook::cuMemAllocFromPoolAsync_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::allocate_from_pool(
      "cuMemAllocFromPoolAsync_ptsz", dptr, bytesize, handle_key(pool),
      [&] { return driver(dptr, bytesize, pool, stream); });
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

// Only the release threshold matters to the charges; every attribute passes through.
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value) {
  const auto driver = real<decltype(&cuMemPoolSetAttribute)>(Hook::cuMemPoolSetAttribute);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(pool, attribute, value);
  if (result == CUDA_SUCCESS && attribute == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD &&
      value != nullptr) {
    const cuuint64_t threshold = *static_cast<const cuuint64_t*>(value);
    quotient::interposer::Accounting::instance().update_pool_charges(
        [&](PoolCharges& pools) { return pools.set_threshold(handle_key(pool), threshold); });
  }
  return result;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  const auto driver = real<decltype(&cuMemPoolTrimTo)>(Hook::cuMemPoolTrimTo);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(pool, keep);
  if (result == CUDA_SUCCESS) {
    quotient::interposer::Accounting::instance().update_pool_charges(
        [&](PoolCharges& pools) { return pools.trim(handle_key(pool), keep); });
  }
  return result;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  const auto driver = real<decltype(&cuMemPoolDestroy)>(Hook::cuMemPoolDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(pool);
  if (result == CUDA_SUCCESS) {
    quotient::interposer::Accounting::instance().update_pool_charges(
        [&](PoolCharges& pools) { return pools.destroy(handle_key(pool)); });
  }
  return result;
}

}  // extern "C"
