// The fake driver's cuGetProcAddress, resolving as the real one does: by base name, choosing the
// newest ABI version that is not newer than the caller's cudaVersion (cuMemAlloc: the v1 entry
// before 3020, cuMemAlloc_v2 from 3020), and the per-thread-default-stream variant when the
// caller asks for one and the entry has one.
#include <cstring>

#include "fake_cuda.h"

using fakecuda::entry;

namespace {

struct Entry {
  const char* name;
  int since;  // the cudaVersion that introduced this ABI of the name
  void* legacy;
  void* per_thread;
};

const Entry kEntries[] = {
    {"cuInit", 2000, entry(&cuInit), nullptr},
    {"cuDeviceGet", 2000, entry(&cuDeviceGet), nullptr},
    {"cuCtxCreate", 3020, entry(&cuCtxCreate_v2), nullptr},
    {"cuCtxGetDevice", 2000, entry(&cuCtxGetDevice), nullptr},
    {"cuMemAlloc", 2000, entry(&cuMemAlloc), nullptr},
    {"cuMemAlloc", 3020, entry(&cuMemAlloc_v2), nullptr},
    {"cuMemAllocPitch", 2000, entry(&cuMemAllocPitch), nullptr},
    {"cuMemAllocPitch", 3020, entry(&cuMemAllocPitch_v2), nullptr},
    {"cuMemAllocManaged", 6000, entry(&cuMemAllocManaged), nullptr},
    {"cuMemAllocAsync", 11020, entry(&cuMemAllocAsync), entry(&cuMemAllocAsync_ptsz)},
    {"cuMemAllocFromPoolAsync", 11020, entry(&cuMemAllocFromPoolAsync),
     entry(&cuMemAllocFromPoolAsync_ptsz)},
    {"cuMemFree", 2000, entry(&cuMemFree), nullptr},
    {"cuMemFree", 3020, entry(&cuMemFree_v2), nullptr},
    {"cuMemFreeAsync", 11020, entry(&cuMemFreeAsync), entry(&cuMemFreeAsync_ptsz)},
    {"cuMemcpy", 4000, entry(&cuMemcpy), entry(&cuMemcpy_ptds)},
    {"cuArrayCreate", 2000, entry(&cuArrayCreate), nullptr},
    {"cuArrayCreate", 3020, entry(&cuArrayCreate_v2), nullptr},
    {"cuArray3DCreate", 2000, entry(&cuArray3DCreate), nullptr},
    {"cuArray3DCreate", 3020, entry(&cuArray3DCreate_v2), nullptr},
    {"cuArrayDestroy", 2000, entry(&cuArrayDestroy), nullptr},
    {"cuMipmappedArrayCreate", 5000, entry(&cuMipmappedArrayCreate), nullptr},
    {"cuMipmappedArrayDestroy", 5000, entry(&cuMipmappedArrayDestroy), nullptr},
    {"cuMemCreate", 10020, entry(&cuMemCreate), nullptr},
    {"cuMemRelease", 10020, entry(&cuMemRelease), nullptr},
    {"cuMemGetInfo", 2000, entry(&cuMemGetInfo), nullptr},
    {"cuMemGetInfo", 3020, entry(&cuMemGetInfo_v2), nullptr},
    {"cuDeviceTotalMem", 2000, entry(&cuDeviceTotalMem), nullptr},
    {"cuDeviceTotalMem", 3020, entry(&cuDeviceTotalMem_v2), nullptr},
    {"cuGraphCreate", 10000, entry(&cuGraphCreate), nullptr},
    {"cuGraphAddMemAllocNode", 11040, entry(&cuGraphAddMemAllocNode), nullptr},
    {"cuGraphAddMemFreeNode", 11040, entry(&cuGraphAddMemFreeNode), nullptr},
    {"cuGraphAddNode", 12020, entry(&cuGraphAddNode), nullptr},
    {"cuGraphAddNode", 12030, entry(&cuGraphAddNode_v2), nullptr},
    {"cuGraphInstantiate", 10000, entry(&cuGraphInstantiate), nullptr},
    {"cuGraphInstantiate", 11000, entry(&cuGraphInstantiate_v2), nullptr},
    {"cuGraphInstantiate", 12000, entry(&cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphInstantiateWithFlags", 11040, entry(&cuGraphInstantiateWithFlags), nullptr},
    {"cuGraphInstantiateWithParams", 12000, entry(&cuGraphInstantiateWithParams),
     entry(&cuGraphInstantiateWithParams_ptsz)},
    {"cuGraphLaunch", 10000, entry(&cuGraphLaunch), entry(&cuGraphLaunch_ptsz)},
    {"cuGraphDestroy", 10000, entry(&cuGraphDestroy), nullptr},
    {"cuGraphExecDestroy", 10000, entry(&cuGraphExecDestroy), nullptr},
    {"cuDeviceGraphMemTrim", 11040, entry(&cuDeviceGraphMemTrim), nullptr},
    {"cuGetProcAddress", 11030, entry(&cuGetProcAddress), nullptr},
    {"cuGetProcAddress", 12000, entry(&cuGetProcAddress_v2), nullptr},
};

void* resolve(const char* symbol, int cuda_version, cuuint64_t flags) {
  const Entry* chosen = nullptr;
  for (const Entry& row : kEntries) {
    if (std::strcmp(row.name, symbol) != 0 || row.since > cuda_version) continue;
    if (chosen == nullptr || row.since > chosen->since) chosen = &row;
  }
  if (chosen == nullptr) return nullptr;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  return per_thread && chosen->per_thread != nullptr ? chosen->per_thread : chosen->legacy;
}

}  // namespace

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  *pfn = resolve(symbol, cuda_version, flags);
  if (status != nullptr) {
    *status = *pfn != nullptr ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  return *pfn != nullptr ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                      cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, nullptr);
}
