// The probe's state and its groups of steps (interposer_probe.cc runs them; the step names and
// what each prints are listed there and in probe_graph_steps.cc / probe_lookup_steps.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fake_cuda_api.h"
#include "interposer/cuda_abi.h"

namespace quotient::interposer::testing {

constexpr std::uint64_t kMiB = 1ULL << 20;

using Parts = std::vector<std::string>;  // a step's text split at ':'

struct ProbeState {
  std::vector<CUcontext> contexts;
  std::vector<CUdeviceptr> pointers;
  std::vector<CUdeviceptr_v1> v1_pointers;
  std::vector<CUarray> arrays;
  std::vector<CUmipmappedArray> mipmaps;
  std::vector<CUmemGenericAllocationHandle> handles;
  std::vector<CUgraph> graphs;
  std::vector<CUdeviceptr> graph_allocations;
  std::vector<CUgraphExec> executables;
  std::vector<CUmemoryPool> pools;
};

std::uint64_t number(const Parts& parts, std::size_t index);

// cudart's discovery path: dlsym(dlopen("libcuda.so.1"), "cuGetProcAddress_v2"), then a lookup
// by base name. nullptr if the driver does not know the name.
void* proc_address(const char* name, int cuda_version, cuuint64_t flags);

// Each returns false if the step is not one of its group.
bool run_graph_step(ProbeState& state, const Parts& parts);
bool run_lookup_step(ProbeState& state, const Parts& parts);
bool run_pool_step(ProbeState& state, const Parts& parts);

}  // namespace quotient::interposer::testing
