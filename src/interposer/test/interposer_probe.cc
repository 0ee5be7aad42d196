// The program the interposer tests run under LD_PRELOAD: executes the steps named on its command
// line against the (fake) driver and prints one line per step, "<step> <numbers...>". Graph and
// lookup steps: probe_graph_steps.cc, probe_lookup_steps.cc.
// It reaches the driver the three ways real programs do: direct calls (linked against
// libcuda.so.1), cuGetProcAddress_v2 found with dlsym on a dlopen handle (cudart's path), and
// dlsym(dlopen("libcuda.so.1"), "cuMemAlloc_v2").
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probe.h"

extern "C" {
CUresult cuInit(unsigned int flags);
CUresult cuCtxCreate_v2(CUcontext* context, unsigned int flags, CUdevice device);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes);
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width, size_t height,
                            unsigned int element_size);
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int flags);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc);
CUresult cuArrayDestroy(CUarray array);
CUresult cuMipmappedArrayCreate(CUmipmappedArray* handle, const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                unsigned int levels);
CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle);
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemGetInfo_v2(size_t* free, size_t* total);
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device);
CUresult fakecuda_alloc_untracked(CUdeviceptr* dptr, size_t bytes);
int fakecuda_ptsz_calls();
}

namespace quotient::interposer::testing {

void* proc_address(const char* name, int cuda_version, cuuint64_t flags);

namespace {

using AllocFunction = CUresult (*)(CUdeviceptr*, size_t);
using AllocAsyncFunction = CUresult (*)(CUdeviceptr*, size_t, CUstream);
using GetProcAddressFunction = CUresult (*)(const char*, void**, int, cuuint64_t,
                                            CUdriverProcAddressQueryResult*);
using NvmlInitFunction = nvmlReturn_t (*)();
using NvmlHandleFunction = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using NvmlMemoryFunction = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using NvmlMemoryV2Function = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t*);

void* cuda_handle() {
  static void* const handle = dlopen("libcuda.so.1", RTLD_NOW);
  return handle;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos) return parts;
    start = colon + 1;
  }
}

// array3d's descriptor: FLOAT (0x20) and 1 channel unless the step names a format and channels.
CUDA_ARRAY3D_DESCRIPTOR descriptor(const Parts& parts) {
  const bool has_format = parts.size() > 6;
  return CUDA_ARRAY3D_DESCRIPTOR{number(parts, 1),
                                 number(parts, 2),
                                 number(parts, 3),
                                 has_format ? static_cast<CUarray_format>(number(parts, 5)) : 0x20,
                                 has_format ? static_cast<unsigned int>(number(parts, 6)) : 1U,
                                 static_cast<unsigned int>(number(parts, 4))};
}

struct Probe : ProbeState {
  // `pointer` by reference: it is read after the call that fills it.
  void report_allocation(const std::string& step, CUresult result, const CUdeviceptr& pointer) {
    if (result == CUDA_SUCCESS) pointers.push_back(pointer);
    std::printf("%s %d\n", step.c_str(), result);
  }

  void run_threads(std::uint64_t threads, std::uint64_t per_thread, std::uint64_t mib) {
    std::atomic<int> succeeded{0};
    std::vector<std::thread> workers;
    std::mutex pointers_mutex;
    for (std::uint64_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        cuCtxSetCurrent(contexts.front());
        for (std::uint64_t i = 0; i < per_thread; ++i) {
          CUdeviceptr pointer = 0;
          if (cuMemAlloc_v2(&pointer, mib * kMiB) == CUDA_SUCCESS) {
            ++succeeded;
            std::lock_guard lock(pointers_mutex);
            pointers.push_back(pointer);
          }
        }
      });
    }
    for (auto& worker : workers) worker.join();
    std::printf("threads %d\n", succeeded.load());
  }

  void nvml(int device) {
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    auto init = reinterpret_cast<NvmlInitFunction>(dlsym(library, "nvmlInit_v2"));
    auto handle_by_index =
        reinterpret_cast<NvmlHandleFunction>(dlsym(library, "nvmlDeviceGetHandleByIndex_v2"));
    auto memory_info =
        reinterpret_cast<NvmlMemoryFunction>(dlsym(library, "nvmlDeviceGetMemoryInfo"));
    auto memory_info_v2 =
        reinterpret_cast<NvmlMemoryV2Function>(dlsym(library, "nvmlDeviceGetMemoryInfo_v2"));
    nvmlDevice_t handle = nullptr;
    init();
    handle_by_index(static_cast<unsigned int>(device), &handle);
    nvmlMemory_t memory{};
    memory_info(handle, &memory);
    std::printf("nvml %llu %llu %llu\n", memory.total, memory.used, memory.free);
    nvmlMemory_v2_t memory_v2{};
    memory_info_v2(handle, &memory_v2);
    std::printf("nvml2 %llu %llu %llu\n", memory_v2.total, memory_v2.used, memory_v2.free);
  }

  void step(const std::string& text) {
    const auto parts = split(text);
    const std::string& name = parts[0];
    CUdeviceptr pointer = 0;
    if (name == "ctx") {
      CUcontext context = nullptr;
      cuCtxCreate_v2(&context, 0, static_cast<CUdevice>(number(parts, 1)));
      contexts.push_back(context);
    } else if (name == "alloc") {
      report_allocation(name, cuMemAlloc_v2(&pointer, number(parts, 1) * kMiB), pointer);
    } else if (name == "alloc-gpa") {
      auto alloc = reinterpret_cast<AllocFunction>(proc_address("cuMemAlloc", 12080, 0));
      report_allocation(name, alloc(&pointer, number(parts, 1) * kMiB), pointer);
    } else if (name == "alloc-dlsym") {
      auto alloc = reinterpret_cast<AllocFunction>(dlsym(cuda_handle(), "cuMemAlloc_v2"));
      report_allocation(name, alloc(&pointer, number(parts, 1) * kMiB), pointer);
    } else if (name == "async-ptsz") {
      auto alloc = reinterpret_cast<AllocAsyncFunction>(
          proc_address("cuMemAllocAsync", 12080, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
      report_allocation(name, alloc(&pointer, number(parts, 1) * kMiB, nullptr), pointer);
    } else if (name == "ptsz-calls") {
      std::printf("ptsz-calls %d\n", fakecuda_ptsz_calls());
    } else if (name == "managed") {
      report_allocation(name, cuMemAllocManaged(&pointer, number(parts, 1) * kMiB, 1), pointer);
    } else if (name == "pitch") {  // pitch:<width bytes>:<height>
      size_t pitch = 0;
      report_allocation(name,
                        cuMemAllocPitch_v2(&pointer, &pitch, number(parts, 1), number(parts, 2), 4),
                        pointer);
    } else if (name == "array3d") {  // array3d:<w>:<h>:<d>[:<flags>[:<format>:<channels>]]
      const CUDA_ARRAY3D_DESCRIPTOR desc = descriptor(parts);
      CUarray array = nullptr;
      const CUresult result = cuArray3DCreate_v2(&array, &desc);
      if (result == CUDA_SUCCESS) arrays.push_back(array);
      std::printf("array3d %d\n", result);
    } else if (name == "array-destroy") {
      std::printf("array-destroy %d\n", cuArrayDestroy(arrays.back()));
      arrays.pop_back();
    } else if (name == "mipmap") {  // mipmap:<w>:<h>:<levels>, FLOAT, 1 channel
      const CUDA_ARRAY3D_DESCRIPTOR desc{number(parts, 1), number(parts, 2), 0, 0x20, 1, 0};
      CUmipmappedArray mipmap = nullptr;
      const CUresult result =
          cuMipmappedArrayCreate(&mipmap, &desc, static_cast<unsigned int>(number(parts, 3)));
      if (result == CUDA_SUCCESS) mipmaps.push_back(mipmap);
      std::printf("mipmap %d\n", result);
    } else if (name == "mipmap-destroy") {
      std::printf("mipmap-destroy %d\n", cuMipmappedArrayDestroy(mipmaps.back()));
      mipmaps.pop_back();
    } else if (name == "vmm") {  // vmm:<device>:<MiB>
      CUmemAllocationProp prop{};
      prop.location =
          CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, static_cast<int>(number(parts, 1))};
      CUmemGenericAllocationHandle handle = 0;
      const CUresult result = cuMemCreate(&handle, number(parts, 2) * kMiB, &prop, 0);
      if (result == CUDA_SUCCESS) handles.push_back(handle);
      std::printf("vmm %d\n", result);
    } else if (name == "vmm-release") {
      std::printf("vmm-release %d\n", cuMemRelease(handles.back()));
      handles.pop_back();
    } else if (name == "free-last") {
      std::printf("free-last %d\n", cuMemFree_v2(pointers.back()));
      pointers.pop_back();
    } else if (name == "free-all") {
      int failures = 0;
      for (const CUdeviceptr each : pointers) failures += cuMemFree_v2(each) != CUDA_SUCCESS;
      pointers.clear();
      std::printf("free-all %d\n", failures);
    } else if (name == "untracked-free") {
      fakecuda_alloc_untracked(&pointer, number(parts, 1) * kMiB);
      std::printf("untracked-free %d\n", cuMemFree_v2(pointer));
    } else if (name == "bogus-free") {
      std::printf("bogus-free %d\n", cuMemFree_v2(0xdead0000ULL));
    } else if (name == "meminfo") {
      size_t free = 0;
      size_t total = 0;
      const CUresult result = cuMemGetInfo_v2(&free, &total);
      std::printf("meminfo %d %zu %zu\n", result, free, total);
    } else if (name == "totalmem") {
      size_t bytes = 0;
      const CUresult result = cuDeviceTotalMem_v2(&bytes, static_cast<CUdevice>(number(parts, 1)));
      std::printf("totalmem %d %zu\n", result, bytes);
    } else if (name == "threads") {  // threads:<threads>:<allocations each>:<MiB>
      run_threads(number(parts, 1), number(parts, 2), number(parts, 3));
    } else if (name == "nvml") {
      nvml(static_cast<int>(number(parts, 1)));
    } else if (name == "hold") {  // keep the allocations until stdin closes
      std::printf("holding\n");
      std::fflush(stdout);
      std::string ignored;
      while (std::getline(std::cin, ignored)) {
      }
    } else if (!run_graph_step(*this, parts) && !run_lookup_step(*this, parts) &&
               !run_pool_step(*this, parts)) {
      std::printf("unknown-step %s\n", name.c_str());
    }
    std::fflush(stdout);
  }
};

}  // namespace

// cudart's discovery: dlsym(handle, "cuGetProcAddress_v2"), then ask it by base name.
void* proc_address(const char* name, int cuda_version, cuuint64_t flags) {
  auto get = reinterpret_cast<GetProcAddressFunction>(dlsym(cuda_handle(), "cuGetProcAddress_v2"));
  void* function = nullptr;
  CUdriverProcAddressQueryResult status = 0;
  if (get == nullptr || get(name, &function, cuda_version, flags, &status) != CUDA_SUCCESS) {
    return nullptr;
  }
  return function;
}

std::uint64_t number(const Parts& parts, std::size_t index) {
  return index < parts.size() ? std::strtoull(parts[index].c_str(), nullptr, 10) : 0;
}

}  // namespace quotient::interposer::testing

int main(int argc, char** argv) {
  cuInit(0);
  quotient::interposer::testing::Probe probe;
  for (int index = 1; index < argc; ++index) probe.step(argv[index]);
  return 0;
}
