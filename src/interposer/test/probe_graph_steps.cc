// Graph steps of the probe, each printing "<step> <CUresult>" (graph-trim also the fake's count
// of trims):
//   graph                         cuGraphCreate
//   graph-alloc:<MiB>[:<device>]  cuGraphAddMemAllocNode to the last graph (device 0 by default)
//   graph-alloc-bogus:<MiB>       the same to a graph handle the driver does not know
//   graph-node-alloc:<MiB>        the same through cuGraphAddNode; graph-node-alloc2: _v2
//   graph-free                    cuGraphAddMemFreeNode of the last graph allocation
//   graph-move-child              the last graph becomes a moved child of the one before it
//   instantiate[:flags|params|params-ptsz|v2|v1]   the last graph (flags by default)
//   launch, graph-destroy, exec-destroy, graph-trim:<device>
#include <cstdio>

#include "probe.h"

namespace quotient::interposer::testing {
namespace {

constexpr std::uintptr_t kBogusHandle = 0xdead0000;

using InstantiateWithParams = CUresult (*)(CUgraphExec*, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS*);

CUDA_MEM_ALLOC_NODE_PARAMS allocation_params(std::uint64_t mib, int device) {
  CUDA_MEM_ALLOC_NODE_PARAMS params{};
  params.poolProps.allocType = 1;  // CU_MEM_ALLOCATION_TYPE_PINNED
  params.poolProps.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, device};
  params.bytesize = mib * kMiB;
  return params;
}

CUresult instantiate(CUgraphExec* executable, CUgraph graph, const std::string& how) {
  if (how == "params") return cuGraphInstantiateWithParams(executable, graph, nullptr);
  if (how == "params-ptsz") {
    auto function = reinterpret_cast<InstantiateWithParams>(proc_address(
        "cuGraphInstantiateWithParams", 12080, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
    return function(executable, graph, nullptr);
  }
  if (how == "v2") return cuGraphInstantiate_v2(executable, graph, nullptr, nullptr, 0);
  if (how == "v1") return cuGraphInstantiate(executable, graph, nullptr, nullptr, 0);
  return cuGraphInstantiateWithFlags(executable, graph, 0);
}

CUresult add_node(ProbeState& state, CUgraphNodeParams& params, bool v2) {
  CUgraphNode node = nullptr;
  return v2 ? cuGraphAddNode_v2(&node, state.graphs.back(), nullptr, nullptr, 0, &params)
            : cuGraphAddNode(&node, state.graphs.back(), nullptr, 0, &params);
}

}  // namespace

bool run_graph_step(ProbeState& state, const Parts& parts) {
  const std::string& name = parts[0];
  CUresult result = CUDA_SUCCESS;
  if (name == "graph") {
    CUgraph graph = nullptr;
    result = cuGraphCreate(&graph, 0);
    if (result == CUDA_SUCCESS) state.graphs.push_back(graph);
  } else if (name == "graph-alloc" || name == "graph-alloc-bogus") {
    CUDA_MEM_ALLOC_NODE_PARAMS params =
        allocation_params(number(parts, 1), static_cast<int>(number(parts, 2)));
    CUgraphNode node = nullptr;
    const CUgraph graph =
        name == "graph-alloc" ? state.graphs.back() : reinterpret_cast<CUgraph>(kBogusHandle);
    result = cuGraphAddMemAllocNode(&node, graph, nullptr, 0, &params);
    if (result == CUDA_SUCCESS) state.graph_allocations.push_back(params.dptr);
  } else if (name == "graph-node-alloc" || name == "graph-node-alloc2") {
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    params.alloc = allocation_params(number(parts, 1), 0);
    result = add_node(state, params, name == "graph-node-alloc2");
    if (result == CUDA_SUCCESS) state.graph_allocations.push_back(params.alloc.dptr);
  } else if (name == "graph-free") {
    CUgraphNode node = nullptr;
    result = cuGraphAddMemFreeNode(&node, state.graphs.back(), nullptr, 0,
                                   state.graph_allocations.back());
  } else if (name == "graph-move-child") {
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_GRAPH;
    params.graph =
        CUDA_CHILD_GRAPH_NODE_PARAMS{state.graphs.back(), CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE};
    state.graphs.pop_back();
    result = add_node(state, params, true);
  } else if (name == "instantiate") {
    CUgraphExec executable = nullptr;
    result = instantiate(&executable, state.graphs.back(), parts.size() > 1 ? parts[1] : "");
    if (result == CUDA_SUCCESS) state.executables.push_back(executable);
  } else if (name == "launch") {
    result = cuGraphLaunch(state.executables.back(), nullptr);
  } else if (name == "graph-destroy") {
    result = cuGraphDestroy(state.graphs.back());
    state.graphs.pop_back();
  } else if (name == "exec-destroy") {
    result = cuGraphExecDestroy(state.executables.back());
    state.executables.pop_back();
  } else if (name == "graph-trim") {
    result = cuDeviceGraphMemTrim(static_cast<CUdevice>(number(parts, 1)));
    std::printf("graph-trim %d %d\n", result, fakecuda_graph_trims());
    return true;
  } else {
    return false;
  }
  std::printf("%s %d\n", name.c_str(), result);
  return true;
}

}  // namespace quotient::interposer::testing
