// Memory the driver allocates for a program later than the call that asked for it: graph
// allocation nodes (mapped when the graph runs) and what a stream-ordered pool keeps after
// frees. Both are charged by the interposer when asked for; these checks also confirm on the
// real driver that the structures and attribute numbers declared in cuda_driver.h are right.
#include <string>

#include "check_support.h"

namespace gpu_check {
namespace {

CheckMemAllocNodeParams node_params(std::uint64_t bytes) {
  CheckMemAllocNodeParams params{};
  params.poolProps.allocType = 1;     // pinned
  params.poolProps.locationType = 1;  // device
  params.poolProps.locationId = 0;
  params.bytesize = bytes;
  return params;
}

std::uint64_t pool_reserved(CUmemoryPool pool) {
  unsigned long long reserved = 0;
  return cuMemPoolGetAttribute(pool, kPoolReservedCurrent, &reserved) == kCudaSuccess ? reserved
                                                                                      : 0;
}

}  // namespace

void check_graph(std::uint64_t limit) {
  static_assert(sizeof(CheckMemAllocNodeParams) == 120, "CUDA_MEM_ALLOC_NODE_PARAMS is 120 bytes");
  if (!open_device("graph-memory")) return;
  Steps steps;
  CUgraph graph = nullptr;
  CUgraphNode node = nullptr;
  CUgraphNode refused = nullptr;
  CUgraphNode free_node = nullptr;
  CUgraphExec executable = nullptr;
  CheckMemAllocNodeParams first = node_params(limit / 4 * 3);
  CheckMemAllocNodeParams second = node_params(limit / 2);
  steps.expect("cuGraphCreate", cuGraphCreate(&graph, 0), 0);
  steps.expect("cuGraphAddMemAllocNode 3/4 of the limit",
               cuGraphAddMemAllocNode(&node, graph, nullptr, 0, &first), 0);
  steps.expect("cuGraphAddMemAllocNode 1/2 more",
               cuGraphAddMemAllocNode(&refused, graph, &node, 1, &second), kCudaOutOfMemory);
  steps.expect("cuGraphAddMemFreeNode",
               cuGraphAddMemFreeNode(&free_node, graph, &node, 1, first.dptr), 0);
  steps.expect("cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags(&executable, graph, 0),
               0);
  steps.expect("cuGraphLaunch", cuGraphLaunch(executable, nullptr), 0);
  steps.expect("cuCtxSynchronize", cuCtxSynchronize(), 0);
  Held held;
  steps.expect("cuMemAlloc_v2 1/2 while the graph exists", held.allocate(limit / 2),
               kCudaOutOfMemory);
  steps.expect("cuGraphExecDestroy", cuGraphExecDestroy(executable), 0);
  steps.expect("cuGraphDestroy", cuGraphDestroy(graph), 0);
  steps.expect("cuDeviceGraphMemTrim", cuDeviceGraphMemTrim(0), 0);
  steps.expect("cuMemAlloc_v2 1/2 after the graph is gone", held.allocate(limit / 2), 0);
  conclude("graph-memory", steps,
           "a 3/4 node added, 1/2 more refused at creation, the graph launched, its memory "
           "charged until graph and executable were destroyed");
}

void check_pool(std::uint64_t limit) {
  if (!open_device("pool-retention")) return;
  Steps steps;
  CUmemoryPool pool = nullptr;
  unsigned long long keep_everything = ~0ULL;
  unsigned long long keep_nothing = 0;
  CUdeviceptr pointer = 0;
  Held held;
  steps.expect("cuDeviceGetMemPool", cuDeviceGetMemPool(&pool, 0), 0);
  steps.expect("cuMemPoolSetAttribute release threshold max",
               cuMemPoolSetAttribute(pool, kPoolReleaseThreshold, &keep_everything), 0);
  steps.expect("cuMemAllocAsync half", cuMemAllocAsync(&pointer, limit / 2, nullptr), 0);
  steps.expect("cuMemFreeAsync", cuMemFreeAsync(pointer, nullptr), 0);
  steps.expect("cuCtxSynchronize", cuCtxSynchronize(), 0);
  const std::uint64_t reserved = pool_reserved(pool);  // what the driver says the pool keeps
  steps.expect("cuMemAlloc_v2 half + 64 MiB beside the kept half",
               held.allocate(limit / 2 + 64 * kMiB), kCudaOutOfMemory);
  steps.expect("cuMemAllocAsync half from what the pool kept",
               cuMemAllocAsync(&pointer, limit / 2, nullptr), 0);
  steps.expect("cuMemFreeAsync", cuMemFreeAsync(pointer, nullptr), 0);
  steps.expect("cuCtxSynchronize", cuCtxSynchronize(), 0);
  steps.expect("cuMemPoolTrimTo 0", cuMemPoolTrimTo(pool, 0), 0);
  steps.expect("cuMemAlloc_v2 half + 64 MiB after the trim", held.allocate(limit / 2 + 64 * kMiB),
               0);
  steps.expect("cuMemPoolSetAttribute release threshold 0",
               cuMemPoolSetAttribute(pool, kPoolReleaseThreshold, &keep_nothing), 0);
  conclude("pool-retention", steps,
           "a freed half kept by its pool (the driver reports " + mib(reserved) +
               " reserved) stayed charged until trimmed, and served the pool's next allocation");
}

}  // namespace gpu_check
