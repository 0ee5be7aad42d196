// The fake libcuda.so.1's entry points, as the real driver's C ABI declares them: what the fake
// exports (and its cuGetProcAddress table hands out) and what the probe calls by name (bound at
// load time, so under the preload they reach the interposer's exports). Plus the fake's own
// counters for tests (fakecuda_*).
#pragma once

#include <cstddef>

#include "interposer/cuda_abi.h"

#pragma GCC visibility push(default)
extern "C" {
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext* context, unsigned int flags, CUdevice device);
CUresult cuCtxGetDevice(CUdevice* device);
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes);
CUresult cuMemAlloc(CUdeviceptr_v1* dptr, unsigned int bytes);
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height,
                            unsigned int element_size);
CUresult cuMemAllocPitch(CUdeviceptr_v1* dptr, unsigned int* pitch, unsigned int width,
                         unsigned int height, unsigned int element_size);
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int flags);
CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream stream);
CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUstream stream);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                 CUstream stream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                      CUstream stream);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemFree(CUdeviceptr_v1 dptr);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc);
CUresult cuArrayCreate(CUarray* array, const CUDA_ARRAY_DESCRIPTOR_v1* desc);
CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc);
CUresult cuArray3DCreate(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR_v1* desc);
CUresult cuArrayDestroy(CUarray array);
CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle, const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                unsigned int levels);
CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle);
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemGetInfo_v2(size_t* free, size_t* total);
CUresult cuMemGetInfo(unsigned int* free, unsigned int* total);
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device);
CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice device);
CUresult cuGraphCreate(CUgraph* graph, unsigned int flags);
CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                size_t count, CUDA_MEM_ALLOC_NODE_PARAMS* params);
CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                               size_t count, CUdeviceptr dptr);
CUresult cuGraphAddNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                        size_t count, CUgraphNodeParams* params);
CUresult cuGraphAddNode_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                           const CUgraphEdgeData* edges, size_t count, CUgraphNodeParams* params);
CUresult cuGraphInstantiate(CUgraphExec* executable, CUgraph graph, CUgraphNode* error_node,
                            char* log, size_t log_size);
CUresult cuGraphInstantiate_v2(CUgraphExec* executable, CUgraph graph, CUgraphNode* error_node,
                               char* log, size_t log_size);
CUresult cuGraphInstantiateWithFlags(CUgraphExec* executable, CUgraph graph,
                                     unsigned long long flags);
CUresult cuGraphInstantiateWithParams(CUgraphExec* executable, CUgraph graph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS* params);
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* executable, CUgraph graph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS* params);
CUresult cuGraphLaunch(CUgraphExec executable, CUstream stream);
CUresult cuGraphLaunch_ptsz(CUgraphExec executable, CUstream stream);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuGraphExecDestroy(CUgraphExec executable);
CUresult cuDeviceGraphMemTrim(CUdevice device);
CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status);
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device);
CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props);
CUresult cuMemPoolDestroy(CUmemoryPool pool);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void* value);
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);
int fakecuda_graph_trims();
int fakecuda_v1_calls();
}
#pragma GCC visibility pop
