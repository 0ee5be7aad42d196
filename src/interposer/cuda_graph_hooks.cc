// CUDA graph memory (graph_charges.h says why it is charged this way): an allocation node is
// charged its size on the pool's device when it is added — beyond the limit the node is refused
// with CUDA_ERROR_OUT_OF_MEMORY — and refunded when its graph and every executable instantiated
// from it are destroyed. Free nodes, launches and cuDeviceGraphMemTrim pass through: they change
// what the driver's pool keeps mapped, not what the graph may allocate.
#include <cstdint>
#include <vector>

#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

using Refunds = std::vector<Allocation>;

// Charges `params->bytesize` for the allocation node `driver_call` adds to `graph`. Nodes of
// memory that is not on a device (host-located pools) are not charged.
template <class DriverCall>
CUresult add_allocation_node(const char* api, CUgraph graph, CUDA_MEM_ALLOC_NODE_PARAMS* params,
                             DriverCall&& driver_call) {
  if (params == nullptr || params->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    return driver_call();
  }
  const int device = params->poolProps.location.id;
  const std::uint64_t bytes = params->bytesize;
  Accounting& accounting = Accounting::instance();
  switch (accounting.admit(api, device, bytes)) {
    case Admission::kRefused:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case Admission::kUnlimited:
      return driver_call();
    case Admission::kCharged:
      break;
  }
  const CUresult result = driver_call();
  if (result != CUDA_SUCCESS) {
    accounting.cancel(device, bytes);
    return result;
  }
  accounting.update_graph_charges([&](GraphCharges& charges) {
    charges.add(handle_key(graph), Allocation{bytes, device});
    return Refunds{};
  });
  return result;
}

// cuGraphAddNode's generic form: allocation nodes are charged; a child graph whose ownership
// moves to the parent hands its charges to the parent, which destroys it.
template <class DriverCall>
CUresult add_generic_node(const char* api, CUgraph graph, CUgraphNodeParams* params,
                          DriverCall&& driver_call) {
  if (params == nullptr) return driver_call();
  if (params->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
    return add_allocation_node(api, graph, &params->alloc, driver_call);
  }
  if (params->type != CU_GRAPH_NODE_TYPE_GRAPH ||
      params->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) {
    return driver_call();
  }
  const std::uint64_t child = handle_key(params->graph.graph);
  const CUresult result = driver_call();
  if (result == CUDA_SUCCESS) {
    Accounting::instance().update_graph_charges([&](GraphCharges& charges) {
      charges.move(child, handle_key(graph));
      return Refunds{};
    });
  }
  return result;
}

// Every instantiation entry: the new executable holds the graph's charges.
template <class DriverCall>
CUresult instantiate(CUgraphExec* executable, CUgraph graph, DriverCall&& driver_call) {
  const CUresult result = driver_call();
  if (result == CUDA_SUCCESS && executable != nullptr) {
    Accounting::instance().update_graph_charges([&](GraphCharges& charges) {
      charges.share(handle_key(graph), handle_key(*executable));
      return Refunds{};
    });
  }
  return result;
}

// Destroys a graph or an executable: its charges are taken before the driver call (a handle
// the driver frees may be reused at once by another thread's new graph) and released after it,
// or given back if the driver refused.
template <class DriverCall>
CUresult destroy(GraphHolder holder, DriverCall&& driver_call) {
  Accounting& accounting = Accounting::instance();
  GraphCharges::Holding held;
  accounting.update_graph_charges([&](GraphCharges& charges) {
    held = charges.take(holder);
    return Refunds{};
  });
  const CUresult result = driver_call();
  accounting.update_graph_charges([&](GraphCharges& charges) {
    if (result == CUDA_SUCCESS) return charges.release(held);
    charges.restore(holder, std::move(held));
    return Refunds{};
  });
  return result;
}

}  // namespace
}  // namespace quotient::interposer

using quotient::interposer::GraphHolderKind;
using quotient::interposer::handle_key;
using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                size_t count, CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  const auto driver = real<decltype(&cuGraphAddMemAllocNode)>(Hook::cuGraphAddMemAllocNode);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::add_allocation_node("cuGraphAddMemAllocNode", graph, params, [&] {
    return driver(node, graph, dependencies, count, params);
  });
}

CUresult cuGraphAddNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                        size_t count, CUgraphNodeParams* params) {
  const auto driver = real<decltype(&cuGraphAddNode)>(Hook::cuGraphAddNode);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::add_generic_node("cuGraphAddNode", graph, params, [&] {
    return driver(node, graph, dependencies, count, params);
  });
}

CUresult cuGraphAddNode_v2(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                           const CUgraphEdgeData* edges, size_t count, CUgraphNodeParams* params) {
  const auto driver = real<decltype(&cuGraphAddNode_v2)>(Hook::cuGraphAddNode_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::add_generic_node("cuGraphAddNode_v2", graph, params, [&] {
    return driver(node, graph, dependencies, edges, count, params);
  });
}

CUresult cuGraphInstantiate(CUgraphExec* executable, CUgraph graph, CUgraphNode* error_node,
                            char* log, size_t log_size) {
  const auto driver = real<decltype(&cuGraphInstantiate)>(Hook::cuGraphInstantiate);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::instantiate(
      executable, graph, [&] { return driver(executable, graph, error_node, log, log_size); });
}

CUresult cuGraphInstantiate_v2(CUgraphExec* executable, CUgraph graph, CUgraphNode* error_node,
                               char* log, size_t log_size) {
  const auto driver = real<decltype(&cuGraphInstantiate_v2)>(Hook::cuGraphInstantiate_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::instantiate(
      executable, graph, [&] { return driver(executable, graph, error_node, log, log_size); });
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* executable, CUgraph graph,
                                     unsigned long long flags) {
  const auto driver =
      real<decltype(&cuGraphInstantiateWithFlags)>(Hook::cuGraphInstantiateWithFlags);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::instantiate(executable, graph,
                                           [&] { return driver(executable, graph, flags); });
}

CUresult cuGraphInstantiateWithParams(CUgraphExec* executable, CUgraph graph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  const auto driver =
      real<decltype(&cuGraphInstantiateWithParams)>(Hook::cuGraphInstantiateWithParams);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::instantiate(executable, graph,
                                           [&] { return driver(executable, graph, params); });
}

CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* executable, CUgraph graph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  const auto driver =
      real<decltype(&cuGraphInstantiateWithParams_ptsz)>(Hook::cuGraphInstantiateWithParams_ptsz);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::instantiate(executable, graph,
                                           [&] { return driver(executable, graph, params); });
}

CUresult cuGraphDestroy(CUgraph graph) {
  const auto driver = real<decltype(&cuGraphDestroy)>(Hook::cuGraphDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::destroy({GraphHolderKind::kGraph, handle_key(graph)},
                                       [&] { return driver(graph); });
}

CUresult cuGraphExecDestroy(CUgraphExec executable) {
  const auto driver = real<decltype(&cuGraphExecDestroy)>(Hook::cuGraphExecDestroy);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return quotient::interposer::destroy({GraphHolderKind::kExecutable, handle_key(executable)},
                                       [&] { return driver(executable); });
}

}  // extern "C"
