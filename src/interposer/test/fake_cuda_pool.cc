// The fake driver's memory pools: handles only. Every device's default pool is a fixed handle;
// created pools get new ones. Attributes and trims are accepted and counted, not modelled: the
// fake's physical memory is what its allocations hold.
#include "fake_cuda.h"

namespace {

constexpr std::uintptr_t kDefaultPoolBase = 0x9000;

bool known_pool(CUmemoryPool pool) {
  const auto handle = reinterpret_cast<std::uintptr_t>(pool);
  if (handle >= kDefaultPoolBase &&
      handle < kDefaultPoolBase + static_cast<std::uintptr_t>(fakecuda::device_count())) {
    return true;
  }
  std::lock_guard lock(fakecuda::gpu().mutex);
  return fakecuda::gpu().pools.count(handle) != 0;
}

}  // namespace

FAKE_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *pool = reinterpret_cast<CUmemoryPool>(kDefaultPoolBase + static_cast<std::uintptr_t>(device));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps*) {
  const std::uint64_t handle = fakecuda::new_handle();
  std::lock_guard lock(fakecuda::gpu().mutex);
  fakecuda::gpu().pools.insert(handle);
  *pool = reinterpret_cast<CUmemoryPool>(static_cast<std::uintptr_t>(handle));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  std::lock_guard lock(fakecuda::gpu().mutex);
  return fakecuda::gpu().pools.erase(reinterpret_cast<std::uintptr_t>(pool)) == 1
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_VALUE;
}
FAKE_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int, void* value) {
  return known_pool(pool) && value != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t) {
  return known_pool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
// Reserved and used memory are not modelled: the fake answers 0.
FAKE_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int, void* value) {
  if (!known_pool(pool) || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *static_cast<cuuint64_t*>(value) = 0;
  return CUDA_SUCCESS;
}
