// The GPU check program. check.sh runs it once per check, with the interposer preloaded (or,
// for `control`, without), and reads its verdict lines (check_support.h):
//
//   gpu_check control <limit MiB>        the GPU itself allows more than the limit
//   gpu_check direct <limit MiB>         cuMemAlloc_v2 linked at load time
//   gpu_check queries <limit MiB>        cuMemGetInfo_v2, cuDeviceTotalMem_v2
//   gpu_check proc-address <limit MiB> <interposer file name>
//   gpu_check graph <limit MiB>          graph allocation nodes (gpu_check_memory_kinds.cc)
//   gpu_check pool <limit MiB>           memory a pool keeps after frees (same file)
//   gpu_check hold <limit MiB> <MiB>     allocate, print "holding", wait for stdin to close
//   gpu_check share <limit MiB> <held>   a second process sees the holder's memory
//   gpu_check reclaim <limit MiB>        the killed holder's memory came back
//   gpu_check nvml <limit MiB> <held>    nvmlDeviceGetMemoryInfo (gpu_check_libraries.cc)
//   gpu_check runtime <limit MiB> <libcudart path>   cudaMalloc, cudaMemGetInfo (same file)
//
// Sizes are fractions of the limit, so the program checks any limit of 512 MiB or more.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_support.h"

namespace gpu_check {

void check_nvml(std::uint64_t limit, std::uint64_t held);
void check_runtime(std::uint64_t limit, const char* cudart);
void check_graph(std::uint64_t limit);
void check_pool(std::uint64_t limit);

namespace {

void check_control(std::uint64_t limit) {
  if (!open_device("control")) return;
  Held held;
  const std::uint64_t bytes = limit + 256 * kMiB;
  const CUresult result = held.allocate(bytes);
  if (result == kCudaSuccess) {
    pass("control", "without the interposer the GPU allows " + mib(bytes) + " (limit + 256 MiB)");
  } else {
    fail("control", "without the interposer " + mib(bytes) + " failed with " +
                        std::to_string(result) + ": the GPU needs that much free memory");
  }
}

void check_direct(std::uint64_t limit) {
  if (!open_device("direct-calls")) return;
  const std::uint64_t quarter = limit / 4;
  Held held;
  Steps steps;
  for (int index = 1; index <= 4; ++index) {
    steps.expect("cuMemAlloc_v2 quarter " + std::to_string(index), held.allocate(quarter), 0);
  }
  steps.expect("cuMemAlloc_v2 a fifth quarter", held.allocate(quarter), kCudaOutOfMemory);
  steps.expect("cuMemAlloc_v2 1 MiB more", held.allocate(kMiB), kCudaOutOfMemory);
  steps.expect("cuMemFree_v2", held.pointers.size() == 4 ? held.free_last() : -1, 0);
  steps.expect("cuMemAlloc_v2 a quarter after the free", held.allocate(quarter), 0);
  conclude("direct-calls", steps,
           "4 x " + mib(quarter) +
               " allowed, the 5th and 1 MiB more refused with 2, a free gave "
               "the quarter back");
}

void check_queries(std::uint64_t limit) {
  if (!open_device("memgetinfo")) return;
  size_t free = 0;
  size_t total = 0;
  size_t free_after = 0;
  size_t total_after = 0;
  const CUresult before = cuMemGetInfo_v2(&free, &total);
  Held held;
  const CUresult allocated = held.allocate(256 * kMiB);
  const CUresult after = cuMemGetInfo_v2(&free_after, &total_after);
  const std::string detail = "total " + mib(total) + ", free " + mib(free) +
                             ", free after 256 MiB " + mib(free_after) + " (limit " + mib(limit) +
                             ")";
  if (before == kCudaSuccess && allocated == kCudaSuccess && after == kCudaSuccess &&
      total == limit && free == limit && total_after == limit && free_after == limit - 256 * kMiB) {
    pass("memgetinfo", detail);
  } else {
    fail("memgetinfo", detail + ", results " + std::to_string(before) + "/" +
                           std::to_string(allocated) + "/" + std::to_string(after));
  }
  size_t device_total = 0;
  const CUresult result = cuDeviceTotalMem_v2(&device_total, 0);
  const std::string device_detail = "device 0: " + mib(device_total);
  if (result == kCudaSuccess && device_total == limit) {
    pass("devicetotalmem", device_detail);
  } else {
    fail("devicetotalmem", device_detail + ", result " + std::to_string(result));
  }
}

// cudart's path to the driver: dlsym on the libcuda.so.1 handle, then lookups by base name.
class Lookup {
 public:
  Lookup() {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    v2_ = reinterpret_cast<GetProcAddressV2>(dlsym(driver, "cuGetProcAddress_v2"));
    v1_ = reinterpret_cast<GetProcAddressV1>(dlsym(driver, "cuGetProcAddress"));
  }
  [[nodiscard]] bool available() const { return v2_ != nullptr || v1_ != nullptr; }
  void* operator()(const char* name, int cuda_version, unsigned long long flags) const {
    void* function = nullptr;
    int status = 0;
    const CUresult result = v2_ != nullptr ? v2_(name, &function, cuda_version, flags, &status)
                                           : v1_(name, &function, cuda_version, flags);
    return result == kCudaSuccess ? function : nullptr;
  }

 private:
  GetProcAddressV2 v2_ = nullptr;
  GetProcAddressV1 v1_ = nullptr;
};

void check_proc_address(std::uint64_t limit, const std::string& interposer) {
  if (!open_device("proc-address")) return;
  const Lookup lookup;
  if (!lookup.available()) {
    fail("proc-address", "libcuda.so.1 exports no cuGetProcAddress");
    return;
  }
  void* alloc = lookup("cuMemAlloc", 12000, 0);
  void* free = lookup("cuMemFree", 12000, 0);
  void* alloc_async = lookup("cuMemAllocAsync", 12000, kPerThreadDefaultStream);
  void* free_async = lookup("cuMemFreeAsync", 12000, kPerThreadDefaultStream);
  const std::string owners =
      owner(alloc) + " " + owner(free) + " " + owner(alloc_async) + " " + owner(free_async);
  const std::string hook = interposer + ":";
  if (owner(alloc) == hook + "cuMemAlloc_v2" && owner(free) == hook + "cuMemFree_v2" &&
      owner(alloc_async) == hook + "cuMemAllocAsync_ptsz" &&
      owner(free_async) == hook + "cuMemFreeAsync_ptsz") {
    pass("proc-address-identity", owners);
  } else {
    fail("proc-address-identity", "expected the interposer's hooks, got " + owners);
  }
  if (alloc == nullptr || free == nullptr || alloc_async == nullptr || free_async == nullptr) {
    fail("proc-address-limit", "a lookup failed: " + owners);
    return;
  }
  Steps steps;
  CUdeviceptr first = 0;
  CUdeviceptr second = 0;
  CUdeviceptr beyond = 0;
  const auto alloc_call = reinterpret_cast<MemAlloc>(alloc);
  const auto free_call = reinterpret_cast<MemFree>(free);
  steps.expect("cuMemAlloc (looked up) half", alloc_call(&first, limit / 2), 0);
  steps.expect("cuMemAlloc (looked up) half", alloc_call(&second, limit / 2), 0);
  steps.expect("cuMemAlloc (looked up) 1 MiB more", alloc_call(&beyond, kMiB), kCudaOutOfMemory);
  steps.expect("cuMemFree (looked up)", free_call(first), 0);
  steps.expect("cuMemFree (looked up)", free_call(second), 0);
  conclude("proc-address-limit", steps,
           "cuMemAlloc from cuGetProcAddress_v2: 2 halves allowed, "
           "1 MiB more refused with 2");

  Steps async_steps;
  const auto alloc_async_call = reinterpret_cast<MemAllocAsync>(alloc_async);
  const auto free_async_call = reinterpret_cast<MemFreeAsync>(free_async);
  async_steps.expect("cuMemAllocAsync_ptsz limit - 64 MiB",
                     alloc_async_call(&first, limit - 64 * kMiB, nullptr), 0);
  async_steps.expect("cuMemAllocAsync_ptsz 128 MiB more",
                     alloc_async_call(&beyond, 128 * kMiB, nullptr), kCudaOutOfMemory);
  async_steps.expect("cuMemFreeAsync_ptsz", free_async_call(first, nullptr), 0);
  async_steps.expect("cuCtxSynchronize", cuCtxSynchronize(), 0);
  async_steps.expect("cuMemAllocAsync_ptsz again", alloc_async_call(&first, 128 * kMiB, nullptr),
                     0);
  async_steps.expect("cuMemFreeAsync_ptsz", free_async_call(first, nullptr), 0);
  async_steps.expect("cuCtxSynchronize", cuCtxSynchronize(), 0);
  conclude("proc-address-per-thread", async_steps,
           "stream-ordered allocations on the per-thread default stream are limited and freed");

  void* v1 = lookup("cuMemAlloc", 3000, 0);
  if (v1 == nullptr) {
    skip("proc-address-v1", "the driver answers no cuMemAlloc for cudaVersion 3000");
  } else if (owner(v1) == hook + "cuMemAlloc") {
    pass("proc-address-v1", "cudaVersion 3000 gets " + owner(v1));
  } else {
    fail("proc-address-v1", "cudaVersion 3000 gets " + owner(v1) + ", not the v1 hook");
  }
}

void hold(std::uint64_t bytes) {
  if (!open_device("two-processes")) return;
  Held held;
  const CUresult result = held.allocate(bytes);
  if (result != kCudaSuccess) {
    fail("two-processes",
         "the holder could not allocate " + mib(bytes) + ": " + std::to_string(result));
    return;
  }
  std::printf("holding %s\n", mib(bytes).c_str());
  std::fflush(stdout);
  char line[64];
  while (std::fgets(line, sizeof line, stdin) != nullptr) {
  }
}

void check_share(std::uint64_t limit, std::uint64_t held_bytes) {
  if (!open_device("two-processes")) return;
  size_t free = 0;
  size_t total = 0;
  Steps steps;
  steps.expect("cuMemGetInfo_v2", cuMemGetInfo_v2(&free, &total), 0);
  steps.expect("free == limit - held", free == limit - held_bytes ? 0 : 1, 0);
  Held held;
  steps.expect("cuMemAlloc_v2 what is left + 64 MiB", held.allocate(limit - held_bytes + 64 * kMiB),
               kCudaOutOfMemory);
  steps.expect("cuMemAlloc_v2 what is left", held.allocate(limit - held_bytes), 0);
  conclude("two-processes", steps,
           "with " + mib(held_bytes) + " held by another process: free " + mib(free) +
               ", what is left allowed, 64 MiB more refused");
}

void check_reclaim(std::uint64_t limit) {
  if (!open_device("killed-process-reclaimed")) return;
  Held held;
  const CUresult result = held.allocate(limit);
  if (result == kCudaSuccess) {
    pass("killed-process-reclaimed", "after kill -9 of the holder the whole limit is allowed");
  } else {
    fail("killed-process-reclaimed",
         "the whole limit after kill -9 of the holder: " + std::to_string(result));
  }
}

}  // namespace
}  // namespace gpu_check

int main(int argc, char** argv) {
  using namespace gpu_check;
  if (argc < 3) {
    std::fprintf(stderr, "usage: gpu_check <check> <limit MiB> [argument]\n");
    return 2;
  }
  const std::string check = argv[1];
  const std::uint64_t limit = std::strtoull(argv[2], nullptr, 10) * kMiB;
  const char* argument = argc > 3 ? argv[3] : "";
  const std::uint64_t argument_bytes = std::strtoull(argument, nullptr, 10) * kMiB;
  if (check == "control") {
    check_control(limit);
  } else if (check == "direct") {
    check_direct(limit);
  } else if (check == "queries") {
    check_queries(limit);
  } else if (check == "proc-address") {
    check_proc_address(limit, argument);
  } else if (check == "graph") {
    check_graph(limit);
  } else if (check == "pool") {
    check_pool(limit);
  } else if (check == "hold") {
    hold(argument_bytes);
  } else if (check == "share") {
    check_share(limit, argument_bytes);
  } else if (check == "reclaim") {
    check_reclaim(limit);
  } else if (check == "nvml") {
    check_nvml(limit, argument_bytes);
  } else if (check == "runtime") {
    check_runtime(limit, argument);
  } else {
    fail(check, "unknown check");
    return 2;
  }
  return 0;
}
