// Checks through the libraries other programs use instead of the driver API: NVML (what
// nvidia-smi reads) and the CUDA runtime (what CUDA C++ and frameworks call), both loaded with
// dlopen so the check builds without them.
#include <dlfcn.h>

#include <string>

#include "check_support.h"

namespace gpu_check {

void check_nvml(std::uint64_t limit, std::uint64_t held) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (library == nullptr) {
    skip("nvml", "no libnvidia-ml.so.1");
    return;
  }
  const auto init = reinterpret_cast<NvmlInit>(dlsym(library, "nvmlInit_v2"));
  const auto by_index =
      reinterpret_cast<NvmlHandleByIndex>(dlsym(library, "nvmlDeviceGetHandleByIndex_v2"));
  const auto memory_info =
      reinterpret_cast<NvmlMemoryInfo>(dlsym(library, "nvmlDeviceGetMemoryInfo"));
  if (init == nullptr || by_index == nullptr || memory_info == nullptr) {
    fail("nvml",
         "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByIndex_v2 or "
         "nvmlDeviceGetMemoryInfo");
    return;
  }
  void* device = nullptr;
  CheckNvmlMemory memory{};
  const int results[] = {init(), by_index(0, &device), memory_info(device, &memory)};
  const std::string detail = "total " + std::to_string(memory.total / kMiB) + " MiB, used " +
                             std::to_string(memory.used / kMiB) + " MiB, free " +
                             std::to_string(memory.free / kMiB) + " MiB with " +
                             std::to_string(held / kMiB) + " MiB held";
  if (results[0] == 0 && results[1] == 0 && results[2] == 0 && memory.total == limit &&
      memory.used == held && memory.free == limit - held) {
    pass("nvml", detail);
  } else {
    fail("nvml", detail + ", results " + std::to_string(results[0]) + "/" +
                     std::to_string(results[1]) + "/" + std::to_string(results[2]));
  }
}

void check_runtime(std::uint64_t limit, const char* cudart) {
  void* library = dlopen(cudart, RTLD_NOW);
  if (library == nullptr) {
    fail("runtime-api", std::string("cannot load ") + cudart + ": " + dlerror());
    return;
  }
  const auto cuda_malloc = reinterpret_cast<CudaMalloc>(dlsym(library, "cudaMalloc"));
  const auto cuda_free = reinterpret_cast<CudaFree>(dlsym(library, "cudaFree"));
  const auto mem_get_info = reinterpret_cast<CudaMemGetInfo>(dlsym(library, "cudaMemGetInfo"));
  if (cuda_malloc == nullptr || cuda_free == nullptr || mem_get_info == nullptr) {
    fail("runtime-api", std::string(cudart) + " lacks cudaMalloc, cudaFree or cudaMemGetInfo");
    return;
  }
  Steps steps;
  size_t free = 0;
  size_t total = 0;
  void* half = nullptr;
  void* beyond = nullptr;
  steps.expect("cudaMemGetInfo", mem_get_info(&free, &total), 0);
  steps.expect("cudaMemGetInfo total == limit", total == limit ? 0 : 1, 0);
  steps.expect("cudaMalloc half", cuda_malloc(&half, limit / 2), 0);
  steps.expect("cudaMalloc half + 64 MiB", cuda_malloc(&beyond, limit / 2 + 64 * kMiB),
               2);  // cudaErrorMemoryAllocation
  steps.expect("cudaFree", cuda_free(half), 0);
  steps.expect("cudaMalloc half + 64 MiB after the free",
               cuda_malloc(&beyond, limit / 2 + 64 * kMiB), 0);
  steps.expect("cudaFree", cuda_free(beyond), 0);
  const std::string detail = std::string(cudart) + ": total " + std::to_string(total / kMiB) +
                             " MiB; half allowed, half + 64 MiB more refused until freed";
  if (steps.mismatch().empty()) {
    pass("runtime-api", detail);
  } else {
    fail("runtime-api", steps.mismatch() + " (" + detail + ")");
  }
}

}  // namespace gpu_check
