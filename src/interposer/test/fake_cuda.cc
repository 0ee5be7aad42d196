// A fake libcuda.so.1 for tests without a GPU: the intercepted entry points on host address
// space. Each "device" has FAKECUDA_TOTAL_BYTES (default 16 GiB) of physical memory; device
// allocations reserve address space with mmap(PROT_NONE, MAP_NORESERVE), so gigabytes cost
// nothing. Linked with -Bsymbolic, like the real driver, so cuGetProcAddress hands out the
// library's own entries that a naive preload would not see. Graphs: fake_cuda_graph.cc; symbol
// lookup: fake_cuda_proc_address.cc.
#include <sys/mman.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "fake_cuda.h"

namespace fakecuda {
namespace {

constexpr int kDefaultDeviceCount = 2;
thread_local int current_device = -1;

CUresult allocate_current(CUdeviceptr* dptr, std::size_t bytes) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  return reserve(dptr, bytes, current_device, true);
}

// v1 pointers are 32 bits: handles, not addresses of this process.
CUresult allocate_current_v1(CUdeviceptr_v1* dptr, std::size_t bytes) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  unsigned long long key = 0;
  const CUresult result = reserve(&key, bytes, current_device, false);
  if (result == CUDA_SUCCESS) *dptr = static_cast<CUdeviceptr_v1>(key);
  return result;
}

CUresult create_array(CUarray* array, std::size_t bytes) {
  unsigned long long key = 0;
  const CUresult result = reserve(&key, bytes, current_device < 0 ? 0 : current_device, false);
  *array = reinterpret_cast<CUarray>(static_cast<std::uintptr_t>(key));
  return result;
}

std::size_t extent(std::size_t value) { return value == 0 ? 1 : value; }

unsigned int clip32(std::uint64_t value) {
  return value > UINT_MAX ? UINT_MAX : static_cast<unsigned int>(value);
}

}  // namespace

Gpu& gpu() {
  static Gpu* const instance = new Gpu();
  return *instance;
}

int current() { return current_device; }

std::uint64_t total_bytes() {
  const char* value = std::getenv("FAKECUDA_TOTAL_BYTES");
  return value != nullptr ? std::strtoull(value, nullptr, 10) : 16ULL << 30;
}

int device_count() {
  const char* value = std::getenv("FAKECUDA_DEVICE_COUNT");
  return value != nullptr ? std::atoi(value) : kDefaultDeviceCount;
}

std::uint64_t new_handle() {
  std::lock_guard lock(gpu().mutex);
  return gpu().next_handle++;
}

CUresult reserve(unsigned long long* key, std::size_t bytes, int device, bool mapped) {
  std::lock_guard lock(gpu().mutex);
  if (gpu().used[device] + bytes > total_bytes()) return CUDA_ERROR_OUT_OF_MEMORY;
  if (mapped) {
    void* address =
        mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (address == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    *key = reinterpret_cast<std::uintptr_t>(address);
  } else {
    *key = gpu().next_handle++;
  }
  gpu().used[device] += bytes;
  gpu().allocations[*key] = Allocation{bytes, device, mapped};
  return CUDA_SUCCESS;
}

CUresult release(std::uint64_t key) {
  std::lock_guard lock(gpu().mutex);
  const auto found = gpu().allocations.find(key);
  if (found == gpu().allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  const Allocation allocation = found->second;
  if (allocation.mapped) munmap(reinterpret_cast<void*>(key), allocation.bytes);
  gpu().used[allocation.device] -= allocation.bytes;
  gpu().allocations.erase(found);
  return CUDA_SUCCESS;
}

}  // namespace fakecuda

using fakecuda::gpu;

FAKE_EXPORT CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuDriverGetVersion(int* version) {
  *version = 12080;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  *count = fakecuda::device_count();
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
// Contexts are the device ordinal + 1; "current" is per thread, as in the driver.
FAKE_EXPORT CUresult cuCtxCreate_v2(CUcontext* context, unsigned int, CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(device + 1));
  fakecuda::current_device = device;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(device + 1));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  fakecuda::current_device = static_cast<int>(reinterpret_cast<std::uintptr_t>(context)) - 1;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  if (fakecuda::current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *device = fakecuda::current_device;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxSynchronize() {
  return fakecuda::current_device < 0 ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1* dptr, unsigned int bytes) {
  ++gpu().v1_calls;
  return fakecuda::allocate_current_v1(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                        size_t height, unsigned int) {
  *pitch = (width + 255) / 256 * 256;  // the fake's pitch alignment: 256 bytes
  return fakecuda::allocate_current(dptr, *pitch * height);
}
FAKE_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1* dptr, unsigned int* pitch, unsigned int width,
                                     unsigned int height, unsigned int) {
  ++gpu().v1_calls;
  *pitch = (width + 255) / 256 * 256;
  return fakecuda::allocate_current_v1(dptr, std::size_t{*pitch} * height);
}
FAKE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int) {
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream) {
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUstream) {
  ++gpu().ptsz_calls;
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool,
                                             CUstream) {
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUmemoryPool,
                                                  CUstream) {
  ++gpu().ptsz_calls;
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) { return fakecuda::release(dptr); }
FAKE_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr) { return fakecuda::release(dptr); }
FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream) { return fakecuda::release(dptr); }
FAKE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream) {
  ++gpu().ptsz_calls;
  return fakecuda::release(dptr);
}
// Copies allocate nothing; they exist so a per-thread lookup of an entry the interposer does not
// wrap (cuMemcpy -> cuMemcpy_ptds) can be checked to pass through.
FAKE_EXPORT CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr, CUdeviceptr, size_t) { return CUDA_SUCCESS; }

// Arrays hold 4 bytes per channel and element (the fake's own rule, not the interposer's);
// deferred-mapping and sparse arrays hold nothing until memory is mapped into them.
FAKE_EXPORT CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc) {
  return fakecuda::create_array(
      array, desc->Width * fakecuda::extent(desc->Height) * 4 * desc->NumChannels);
}
FAKE_EXPORT CUresult cuArrayCreate(CUarray* array, const CUDA_ARRAY_DESCRIPTOR_v1* desc) {
  ++gpu().v1_calls;
  return fakecuda::create_array(
      array, std::size_t{desc->Width} * fakecuda::extent(desc->Height) * 4 * desc->NumChannels);
}
FAKE_EXPORT CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  const bool backed_later =
      (desc->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING)) != 0;
  return fakecuda::create_array(array, backed_later ? 0
                                                    : desc->Width * fakecuda::extent(desc->Height) *
                                                          fakecuda::extent(desc->Depth) * 4 *
                                                          desc->NumChannels);
}
FAKE_EXPORT CUresult cuArray3DCreate(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc) {
  ++gpu().v1_calls;
  return fakecuda::create_array(array, std::size_t{desc->Width} * fakecuda::extent(desc->Height) *
                                           fakecuda::extent(desc->Depth) * 4 * desc->NumChannels);
}
FAKE_EXPORT CUresult cuArrayDestroy(CUarray array) {
  return fakecuda::release(reinterpret_cast<std::uintptr_t>(array));
}
// Mipmapped arrays: the fake keeps the top level only.
FAKE_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle,
                                            const CUDA_ARRAY3D_DESCRIPTOR* desc, unsigned int) {
  CUarray array = nullptr;
  const CUresult result =
      fakecuda::create_array(&array, desc->Width * fakecuda::extent(desc->Height) *
                                         fakecuda::extent(desc->Depth) * 4 * desc->NumChannels);
  *handle = reinterpret_cast<CUmipmappedArray>(array);
  return result;
}
FAKE_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle) {
  return fakecuda::release(reinterpret_cast<std::uintptr_t>(handle));
}
FAKE_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                                 const CUmemAllocationProp* prop, unsigned long long) {
  return fakecuda::reserve(handle, size, prop->location.id, false);
}
FAKE_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  return fakecuda::release(handle);
}

FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  if (fakecuda::current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(gpu().mutex);
  *total = fakecuda::total_bytes();
  *free = fakecuda::total_bytes() - gpu().used[fakecuda::current_device];
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemGetInfo(unsigned int* free, unsigned int* total) {
  size_t physical_free = 0;
  size_t physical_total = 0;
  const CUresult result = cuMemGetInfo_v2(&physical_free, &physical_total);
  *free = fakecuda::clip32(physical_free);
  *total = fakecuda::clip32(physical_total);
  return result;
}
FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = fakecuda::total_bytes();
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = fakecuda::clip32(fakecuda::total_bytes());
  return CUDA_SUCCESS;
}

// Test backdoors (not driver API): device memory the interposer never saw, and counters of the
// entries that ran.
FAKE_EXPORT CUresult fakecuda_alloc_untracked(CUdeviceptr* dptr, size_t bytes) {
  return fakecuda::allocate_current(dptr, bytes);
}
FAKE_EXPORT int fakecuda_ptsz_calls() { return gpu().ptsz_calls; }
FAKE_EXPORT int fakecuda_v1_calls() { return gpu().v1_calls; }
FAKE_EXPORT int fakecuda_graph_trims() { return gpu().graph_trims; }
FAKE_EXPORT std::uint64_t fakecuda_physical_used(int device) {
  std::lock_guard lock(gpu().mutex);
  return gpu().used[device];
}
