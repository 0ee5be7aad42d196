// A fake libcuda.so.1 for tests without a GPU: the intercepted entry points on host address
// space. Each "device" has FAKECUDA_TOTAL_BYTES (default 16 GiB) of physical memory; device
// allocations reserve address space with mmap(PROT_NONE, MAP_NORESERVE), so gigabytes cost
// nothing. Linked with -Bsymbolic, like the real driver, so cuGetProcAddress hands out the
// library's own entries that a naive preload would not see.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "interposer/cuda_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kDefaultDeviceCount = 2;
thread_local int current_device = -1;

struct FakeGpu {
  std::mutex mutex;
  std::map<std::uint64_t, std::pair<std::size_t, int>> allocations;  // key -> (bytes, device)
  std::uint64_t used[8] = {};
  std::uint64_t next_handle = 1;
  int ptsz_calls = 0;
};

FakeGpu& gpu() {
  static FakeGpu* const instance = new FakeGpu();
  return *instance;
}

std::uint64_t total_bytes() {
  const char* value = std::getenv("FAKECUDA_TOTAL_BYTES");
  return value != nullptr ? std::strtoull(value, nullptr, 10) : 16ULL << 30;
}

int device_count() {
  const char* value = std::getenv("FAKECUDA_DEVICE_COUNT");
  return value != nullptr ? std::atoi(value) : kDefaultDeviceCount;
}

CUresult reserve(unsigned long long* key, std::size_t bytes, int device, bool mapped) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
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
  gpu().allocations[*key] = {bytes, device};
  return CUDA_SUCCESS;
}

CUresult release(std::uint64_t key, bool mapped) {
  std::lock_guard lock(gpu().mutex);
  const auto found = gpu().allocations.find(key);
  if (found == gpu().allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  const auto [bytes, device] = found->second;
  if (mapped) munmap(reinterpret_cast<void*>(key), bytes);
  gpu().used[device] -= bytes;
  gpu().allocations.erase(found);
  return CUDA_SUCCESS;
}

CUresult allocate_current(CUdeviceptr* dptr, std::size_t bytes) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  return reserve(dptr, bytes, current_device, true);
}

}  // namespace

FAKE_EXPORT CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuDriverGetVersion(int* version) {
  *version = 12080;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  *count = device_count();
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
// Contexts are the device ordinal + 1; "current" is per thread, as in the driver.
FAKE_EXPORT CUresult cuCtxCreate_v2(CUcontext* context, unsigned int, CUdevice device) {
  if (device < 0 || device >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *context = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(device + 1));
  current_device = device;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  current_device = static_cast<int>(reinterpret_cast<std::uintptr_t>(context)) - 1;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  *device = current_device;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                        size_t height, unsigned int) {
  *pitch = (width + 255) / 256 * 256;  // the fake's pitch alignment: 256 bytes
  return allocate_current(dptr, *pitch * height);
}
FAKE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int) {
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream) {
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUstream) {
  ++gpu().ptsz_calls;
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool,
                                             CUstream) {
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUmemoryPool,
                                                  CUstream) {
  ++gpu().ptsz_calls;
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) { return release(dptr, true); }
FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream) { return release(dptr, true); }
FAKE_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream) {
  ++gpu().ptsz_calls;
  return release(dptr, true);
}
FAKE_EXPORT CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc) {
  unsigned long long key = 0;
  const CUresult result =
      reserve(&key, desc->Width * (desc->Height ? desc->Height : 1) * 4 * desc->NumChannels,
              current_device < 0 ? 0 : current_device, false);
  *array = reinterpret_cast<CUarray>(static_cast<std::uintptr_t>(key));
  return result;
}
FAKE_EXPORT CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  unsigned long long key = 0;
  const CUresult result = reserve(&key,
                                  desc->Width * (desc->Height ? desc->Height : 1) *
                                      (desc->Depth ? desc->Depth : 1) * 4 * desc->NumChannels,
                                  current_device < 0 ? 0 : current_device, false);
  *array = reinterpret_cast<CUarray>(static_cast<std::uintptr_t>(key));
  return result;
}
FAKE_EXPORT CUresult cuArrayDestroy(CUarray array) {
  return release(reinterpret_cast<std::uintptr_t>(array), false);
}
FAKE_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                                 const CUmemAllocationProp* prop, unsigned long long) {
  return reserve(handle, size, prop->location.id, false);
}
FAKE_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  return release(handle, false);
}

FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  if (current_device < 0) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(gpu().mutex);
  *total = total_bytes();
  *free = total_bytes() - gpu().used[current_device];
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (device < 0 || device >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = total_bytes();
  return CUDA_SUCCESS;
}

// Test backdoors (not driver API): device memory the interposer never saw, and how many
// per-thread-default-stream entries ran.
FAKE_EXPORT CUresult fakecuda_alloc_untracked(CUdeviceptr* dptr, size_t bytes) {
  return allocate_current(dptr, bytes);
}
FAKE_EXPORT int fakecuda_ptsz_calls() { return gpu().ptsz_calls; }
FAKE_EXPORT std::uint64_t fakecuda_physical_used(int device) {
  std::lock_guard lock(gpu().mutex);
  return gpu().used[device];
}

FAKE_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                      cuuint64_t flags);

namespace {

// The driver's name resolution as cuda.h spells it: base name + ABI version + stream flag.
void* resolve_entry(const char* symbol, int cuda_version, cuuint64_t flags);

}  // namespace

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  *pfn = resolve_entry(symbol, cuda_version, flags);
  if (status != nullptr) {
    *status = *pfn != nullptr ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  return *pfn != nullptr ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                      cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, nullptr);
}

namespace {

template <class Function>
void* entry(Function function) {
  return reinterpret_cast<void*>(function);
}

void* resolve_entry(const char* symbol, int cuda_version, cuuint64_t flags) {
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const struct {
    const char* name;
    void* legacy;
    void* per_thread;
  } table[] = {
      {"cuInit", entry(&cuInit), nullptr},
      {"cuDeviceGet", entry(&cuDeviceGet), nullptr},
      {"cuCtxCreate", entry(&cuCtxCreate_v2), nullptr},
      {"cuCtxGetDevice", entry(&cuCtxGetDevice), nullptr},
      {"cuMemAlloc", entry(&cuMemAlloc_v2), nullptr},
      {"cuMemAllocPitch", entry(&cuMemAllocPitch_v2), nullptr},
      {"cuMemAllocManaged", entry(&cuMemAllocManaged), nullptr},
      {"cuMemAllocAsync", entry(&cuMemAllocAsync), entry(&cuMemAllocAsync_ptsz)},
      {"cuMemAllocFromPoolAsync", entry(&cuMemAllocFromPoolAsync),
       entry(&cuMemAllocFromPoolAsync_ptsz)},
      {"cuMemFree", entry(&cuMemFree_v2), nullptr},
      {"cuMemFreeAsync", entry(&cuMemFreeAsync), entry(&cuMemFreeAsync_ptsz)},
      {"cuArrayCreate", entry(&cuArrayCreate_v2), nullptr},
      {"cuArray3DCreate", entry(&cuArray3DCreate_v2), nullptr},
      {"cuArrayDestroy", entry(&cuArrayDestroy), nullptr},
      {"cuMemCreate", entry(&cuMemCreate), nullptr},
      {"cuMemRelease", entry(&cuMemRelease), nullptr},
      {"cuMemGetInfo", entry(&cuMemGetInfo_v2), nullptr},
      {"cuDeviceTotalMem", entry(&cuDeviceTotalMem_v2), nullptr},
      {"cuGetProcAddress",
       cuda_version >= 12000 ? entry(&cuGetProcAddress_v2) : entry(&cuGetProcAddress), nullptr},
  };
  for (const auto& row : table) {
    if (std::strcmp(row.name, symbol) != 0) continue;
    return per_thread && row.per_thread != nullptr ? row.per_thread : row.legacy;
  }
  return nullptr;
}

}  // namespace
