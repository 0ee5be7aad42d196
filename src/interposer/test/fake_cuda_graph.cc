// The fake driver's graphs: handles and bookkeeping only. An allocation node hands out an
// address range; no physical memory is used (the real driver maps it at launch), so a test
// without the interposer sees graphs of any size accepted.
#include <sys/mman.h>

#include "fake_cuda.h"

namespace fakecuda {
namespace {

bool known(const std::set<std::uint64_t>& handles, const void* handle) {
  std::lock_guard lock(gpu().mutex);
  return handles.count(reinterpret_cast<std::uintptr_t>(handle)) != 0;
}

template <class Handle>
Handle make(std::set<std::uint64_t>& handles) {
  const std::uint64_t handle = new_handle();
  std::lock_guard lock(gpu().mutex);
  handles.insert(handle);
  return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(handle));
}

template <class Handle>
CUresult forget(std::set<std::uint64_t>& handles, Handle handle) {
  std::lock_guard lock(gpu().mutex);
  return handles.erase(reinterpret_cast<std::uintptr_t>(handle)) == 1 ? CUDA_SUCCESS
                                                                      : CUDA_ERROR_INVALID_VALUE;
}

CUresult add_allocation(CUgraphNode* node, CUgraph graph, CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  if (!known(gpu().graphs, graph) || params == nullptr || params->bytesize == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  void* address = mmap(nullptr, params->bytesize, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (address == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  params->dptr = reinterpret_cast<std::uintptr_t>(address);
  {
    std::lock_guard lock(gpu().mutex);
    gpu().graph_allocations.insert(params->dptr);
  }
  *node = reinterpret_cast<CUgraphNode>(static_cast<std::uintptr_t>(new_handle()));
  return CUDA_SUCCESS;
}

CUresult add_free(CUgraphNode* node, CUgraph graph, CUdeviceptr dptr) {
  if (!known(gpu().graphs, graph) ||
      !known(gpu().graph_allocations, reinterpret_cast<void*>(dptr))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *node = reinterpret_cast<CUgraphNode>(static_cast<std::uintptr_t>(new_handle()));
  return CUDA_SUCCESS;
}

CUresult add_generic(CUgraphNode* node, CUgraph graph, CUgraphNodeParams* params) {
  if (params == nullptr || !known(gpu().graphs, graph)) return CUDA_ERROR_INVALID_VALUE;
  switch (params->type) {
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return add_allocation(node, graph, &params->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return add_free(node, graph, params->free.dptr);
    case CU_GRAPH_NODE_TYPE_GRAPH:
      if (!known(gpu().graphs, params->graph.graph)) return CUDA_ERROR_INVALID_VALUE;
      // A moved child belongs to its parent from now on: it can no longer be destroyed alone.
      if (params->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) {
        forget(gpu().graphs, params->graph.graph);
      }
      break;
    default:
      break;
  }
  *node = reinterpret_cast<CUgraphNode>(static_cast<std::uintptr_t>(new_handle()));
  return CUDA_SUCCESS;
}

CUresult instantiate(CUgraphExec* executable, CUgraph graph) {
  if (executable == nullptr || !known(gpu().graphs, graph)) return CUDA_ERROR_INVALID_VALUE;
  *executable = make<CUgraphExec>(gpu().executables);
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace fakecuda

using fakecuda::gpu;

FAKE_EXPORT CUresult cuGraphCreate(CUgraph* graph, unsigned int) {
  *graph = fakecuda::make<CUgraph>(gpu().graphs);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode*,
                                            size_t, CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  return fakecuda::add_allocation(node, graph, params);
}
FAKE_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph, const CUgraphNode*,
                                           size_t, CUdeviceptr dptr) {
  return fakecuda::add_free(node, graph, dptr);
}
FAKE_EXPORT CUresult cuGraphAddNode(CUgraphNode* node, CUgraph graph, const CUgraphNode*, size_t,
                                    CUgraphNodeParams* params) {
  return fakecuda::add_generic(node, graph, params);
}
FAKE_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode*,
                                       const CUgraphEdgeData*, size_t, CUgraphNodeParams* params) {
  return fakecuda::add_generic(node, graph, params);
}
FAKE_EXPORT CUresult cuGraphInstantiate(CUgraphExec* executable, CUgraph graph, CUgraphNode*, char*,
                                        size_t) {
  return fakecuda::instantiate(executable, graph);
}
FAKE_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec* executable, CUgraph graph, CUgraphNode*,
                                           char*, size_t) {
  return fakecuda::instantiate(executable, graph);
}
FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec* executable, CUgraph graph,
                                                 unsigned long long) {
  return fakecuda::instantiate(executable, graph);
}
FAKE_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec* executable, CUgraph graph,
                                                  CUDA_GRAPH_INSTANTIATE_PARAMS*) {
  return fakecuda::instantiate(executable, graph);
}
FAKE_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* executable, CUgraph graph,
                                                       CUDA_GRAPH_INSTANTIATE_PARAMS*) {
  ++gpu().ptsz_calls;
  return fakecuda::instantiate(executable, graph);
}
FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec executable, CUstream) {
  return fakecuda::known(gpu().executables, executable) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec executable, CUstream) {
  ++gpu().ptsz_calls;
  return fakecuda::known(gpu().executables, executable) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
FAKE_EXPORT CUresult cuGraphDestroy(CUgraph graph) { return fakecuda::forget(gpu().graphs, graph); }
FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec executable) {
  return fakecuda::forget(gpu().executables, executable);
}
FAKE_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device) {
  if (device < 0 || device >= fakecuda::device_count()) return CUDA_ERROR_INVALID_DEVICE;
  ++gpu().graph_trims;
  return CUDA_SUCCESS;
}
