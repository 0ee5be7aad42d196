// The CUDA driver API, NVML and CUDA runtime declarations the GPU check needs, written from the
// CUDA documentation (cuda.h, nvml.h, cuda_runtime_api.h) so the check builds with g++ alone. They
// are deliberately independent of src/interposer/cuda_abi.h: a layout mistake there must show up
// here as a failed check, not be repeated.
#pragma once

#include <cstddef>

extern "C" {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUmemoryPool = struct CUmemPoolHandle_st*;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaOutOfMemory = 2;                   // CUDA_ERROR_OUT_OF_MEMORY
constexpr unsigned long long kPerThreadDefaultStream = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_...
constexpr int kPoolReleaseThreshold = 4;  // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD (cuuint64_t)
constexpr int kPoolReservedCurrent = 5;   // CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT (cuuint64_t)

// CUmemPoolProps as CUDA 12.2+ spells it (maxSize and usage carved out of the reserved bytes).
struct CheckMemPoolProps {
  int allocType;     // CU_MEM_ALLOCATION_TYPE_PINNED = 1
  int handleTypes;   // CU_MEM_HANDLE_TYPE_NONE = 0
  int locationType;  // CUmemLocation.type: CU_MEM_LOCATION_TYPE_DEVICE = 1
  int locationId;    // CUmemLocation.id: the device ordinal
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
struct CheckMemAllocNodeParams {  // CUDA_MEM_ALLOC_NODE_PARAMS
  CheckMemPoolProps poolProps;
  const void* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  CUdeviceptr dptr;
};

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int* version);
CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxSynchronize();
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemGetInfo_v2(size_t* free, size_t* total);
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device);
CUresult cuGraphCreate(CUgraph* graph, unsigned int flags);
CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                size_t count, CheckMemAllocNodeParams* params);
CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                               size_t count, CUdeviceptr dptr);
CUresult cuGraphInstantiateWithFlags(CUgraphExec* executable, CUgraph graph,
                                     unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec executable, CUstream stream);
CUresult cuGraphExecDestroy(CUgraphExec executable);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuDeviceGraphMemTrim(CUdevice device);
CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream stream);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream);
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value);
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attribute, void* value);
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);

// Looked up at run time.
using GetProcAddressV2 = CUresult (*)(const char* symbol, void** function, int cuda_version,
                                      unsigned long long flags, int* symbol_status);
using GetProcAddressV1 = CUresult (*)(const char* symbol, void** function, int cuda_version,
                                      unsigned long long flags);
using MemAlloc = CUresult (*)(CUdeviceptr* dptr, size_t bytes);
using MemFree = CUresult (*)(CUdeviceptr dptr);
using MemAllocAsync = CUresult (*)(CUdeviceptr* dptr, size_t bytes, CUstream stream);
using MemFreeAsync = CUresult (*)(CUdeviceptr dptr, CUstream stream);

// NVML (libnvidia-ml.so.1).
struct CheckNvmlMemory {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
using NvmlInit = int (*)();
using NvmlHandleByIndex = int (*)(unsigned int index, void** device);
using NvmlMemoryInfo = int (*)(void* device, CheckNvmlMemory* memory);

// The CUDA runtime (libcudart.so.*): cudaSuccess = 0, cudaErrorMemoryAllocation = 2.
using CudaMalloc = int (*)(void** pointer, size_t bytes);
using CudaFree = int (*)(void* pointer);
using CudaMemGetInfo = int (*)(size_t* free, size_t* total);

}  // extern "C"
