// The fake libcuda.so.1's shared state and entry points (fake_cuda*.cc). Devices are fake too:
// FAKECUDA_DEVICE_COUNT (default 2) of FAKECUDA_TOTAL_BYTES (default 16 GiB) each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

#include "fake_cuda_api.h"  // the entry points
#include "interposer/cuda_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace fakecuda {

struct Allocation {
  std::size_t bytes;
  int device;
  bool mapped;  // an address range of the process (munmap on free) rather than a counter
};

struct Gpu {
  std::mutex mutex;
  std::map<std::uint64_t, Allocation> allocations;  // key -> allocation
  std::uint64_t used[8] = {};
  std::uint64_t next_handle = 1;  // arrays, VMM handles, v1 pointers, graph objects
  int ptsz_calls = 0;             // per-thread-default-stream entries that ran
  int v1_calls = 0;               // v1 allocations that ran
  int graph_trims = 0;
  std::set<std::uint64_t> graphs;
  std::set<std::uint64_t> executables;
  std::set<std::uint64_t> graph_allocations;  // addresses handed out by allocation nodes
  std::set<std::uint64_t> pools;              // created ones (default pools are fixed handles)
};

Gpu& gpu();
int current();  // the calling thread's device, -1 without a context
std::uint64_t total_bytes();
int device_count();

// Physical memory on `device`: a mapped address range, or a handle below 2^32 (what v1 pointers,
// arrays and VMM handles use). 0 bytes is allowed for handles (arrays backed later).
CUresult reserve(unsigned long long* key, std::size_t bytes, int device, bool mapped);
CUresult release(std::uint64_t key);
std::uint64_t new_handle();

template <class Function>
void* entry(Function function) {
  return reinterpret_cast<void*>(function);
}

}  // namespace fakecuda
