// Stream-ordered allocation and pool steps of the probe, each printing "<step> <CUresult>". The
// pool a step works on is the last one created, else device 0's default pool.
//   pool-create                 cuMemPoolCreate on device 0
//   pool-threshold:<MiB>        cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
//   async:<MiB>                 cuMemAllocAsync (the current pool; legacy stream)
//   pool-async:<MiB>            cuMemAllocFromPoolAsync from the pool
//   free-async                  cuMemFreeAsync of the last allocation
//   pool-trim:<MiB>, pool-destroy
#include <cstdio>

#include "probe.h"

namespace quotient::interposer::testing {
namespace {

CUmemoryPool pool_of(const ProbeState& state) {
  if (!state.pools.empty()) return state.pools.back();
  CUmemoryPool pool = nullptr;
  cuDeviceGetMemPool(&pool, 0);
  return pool;
}

}  // namespace

bool run_pool_step(ProbeState& state, const Parts& parts) {
  const std::string& name = parts[0];
  const std::uint64_t bytes = number(parts, 1) * kMiB;
  CUresult result = CUDA_SUCCESS;
  CUdeviceptr pointer = 0;
  if (name == "pool-create") {
    CUmemPoolProps props{};
    props.allocType = 1;  // pinned
    props.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CUmemoryPool pool = nullptr;
    result = cuMemPoolCreate(&pool, &props);
    if (result == CUDA_SUCCESS) state.pools.push_back(pool);
  } else if (name == "pool-threshold") {
    cuuint64_t threshold = bytes;
    result = cuMemPoolSetAttribute(pool_of(state), CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  } else if (name == "async" || name == "pool-async") {
    result = name == "async" ? cuMemAllocAsync(&pointer, bytes, nullptr)
                             : cuMemAllocFromPoolAsync(&pointer, bytes, pool_of(state), nullptr);
    if (result == CUDA_SUCCESS) state.pointers.push_back(pointer);
  } else if (name == "free-async") {
    result = cuMemFreeAsync(state.pointers.back(), nullptr);
    state.pointers.pop_back();
  } else if (name == "pool-trim") {
    result = cuMemPoolTrimTo(pool_of(state), bytes);
  } else if (name == "pool-destroy") {
    result = cuMemPoolDestroy(state.pools.back());
    state.pools.pop_back();
  } else {
    return false;
  }
  std::printf("%s %d\n", name.c_str(), result);
  return true;
}

}  // namespace quotient::interposer::testing
