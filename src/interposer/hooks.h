// The entry points the interposer exports. Each has the driver's (or NVML's) exact C signature,
// so a program linked against libcuda.so.1 binds to them first (the library is preloaded), and
// symbol_table.cc hands them out for dlsym and cuGetProcAddress lookups too.
#pragma once

#include <dlfcn.h>

#include "interposer/cuda_abi.h"

#define QUOTIENT_EXPORT __attribute__((visibility("default")))

extern "C" {
// Allocation and free (cuda_memory_hooks.cc, cuda_pool_hooks.cc, cuda_vmm_array_hooks.cc).
QUOTIENT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize);
QUOTIENT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                            size_t height, unsigned int element_size);
QUOTIENT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags);
QUOTIENT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize,
                                                 CUmemoryPool pool, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize,
                                                      CUmemoryPool pool, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr);
QUOTIENT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);
QUOTIENT_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value);
QUOTIENT_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);
QUOTIENT_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool);
QUOTIENT_EXPORT CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc);
QUOTIENT_EXPORT CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc);
QUOTIENT_EXPORT CUresult cuArrayDestroy(CUarray array);
QUOTIENT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle,
                                                const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                                unsigned int levels);
QUOTIENT_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle);
QUOTIENT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                                     const CUmemAllocationProp* prop, unsigned long long flags);
QUOTIENT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle);

// The v1 ABI (cuda_legacy_hooks.cc): what cuGetProcAddress answers for a cudaVersion before 3020.
QUOTIENT_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1* dptr, unsigned int bytesize);
QUOTIENT_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1* dptr, unsigned int* pitch,
                                         unsigned int width, unsigned int height,
                                         unsigned int element_size);
QUOTIENT_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr);
QUOTIENT_EXPORT CUresult cuMemGetInfo(unsigned int* free, unsigned int* total);
QUOTIENT_EXPORT CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice device);
QUOTIENT_EXPORT CUresult cuArrayCreate(CUarray* array, const CUDA_ARRAY_DESCRIPTOR_v1* desc);
QUOTIENT_EXPORT CUresult cuArray3DCreate(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc);

// Graph memory (cuda_graph_hooks.cc).
QUOTIENT_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph,
                                                const CUgraphNode* dependencies, size_t count,
                                                CUDA_MEM_ALLOC_NODE_PARAMS* params);
QUOTIENT_EXPORT CUresult cuGraphAddNode(CUgraphNode* node, CUgraph graph,
                                        const CUgraphNode* dependencies, size_t count,
                                        CUgraphNodeParams* params);
QUOTIENT_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode* node, CUgraph graph,
                                           const CUgraphNode* dependencies,
                                           const CUgraphEdgeData* edges, size_t count,
                                           CUgraphNodeParams* params);
QUOTIENT_EXPORT CUresult cuGraphInstantiate(CUgraphExec* executable, CUgraph graph,
                                            CUgraphNode* error_node, char* log, size_t log_size);
QUOTIENT_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec* executable, CUgraph graph,
                                               CUgraphNode* error_node, char* log, size_t log_size);
QUOTIENT_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec* executable, CUgraph graph,
                                                     unsigned long long flags);
QUOTIENT_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec* executable, CUgraph graph,
                                                      CUDA_GRAPH_INSTANTIATE_PARAMS* params);
QUOTIENT_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* executable, CUgraph graph,
                                                           CUDA_GRAPH_INSTANTIATE_PARAMS* params);
QUOTIENT_EXPORT CUresult cuGraphDestroy(CUgraph graph);
QUOTIENT_EXPORT CUresult cuGraphExecDestroy(CUgraphExec executable);

// Queries (cuda_query_hooks.cc).
QUOTIENT_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total);
QUOTIENT_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device);

// Symbol discovery (proc_address_hooks.cc).
QUOTIENT_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                          cuuint64_t flags);
QUOTIENT_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                             cuuint64_t flags,
                                             CUdriverProcAddressQueryResult* symbol_status);

// NVML (nvml_hooks.cc).
QUOTIENT_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
QUOTIENT_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                                        nvmlMemory_v2_t* memory);
}  // extern "C"
