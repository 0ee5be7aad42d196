// Lookup steps of the probe: what cuGetProcAddress_v2 answers for a name, ABI version and stream
// flag, and calls through the v1 entries it hands out for an old cudaVersion.
//   gpa:<name>:<cudaVersion>:<flags>  prints "gpa <name> <library>:<symbol>" of the answer, where
//                                     library is interposer, driver or none (dladdr names the
//                                     exported function the pointer is)
//   alloc-v1:<MiB>, free-v1, meminfo-v1 ("meminfo-v1 <CUresult> <free> <total>"), v1-calls
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "probe.h"

namespace quotient::interposer::testing {
namespace {

constexpr int kBeforeV2 = 3000;  // a cudaVersion before the v2 ABI (3020)

using AllocV1 = CUresult (*)(CUdeviceptr_v1*, unsigned int);
using FreeV1 = CUresult (*)(CUdeviceptr_v1);
using MemGetInfoV1 = CUresult (*)(unsigned int*, unsigned int*);

std::string owner(void* function) {
  if (function == nullptr) return "none";
  Dl_info info{};
  if (dladdr(function, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  const char* slash = std::strrchr(info.dli_fname, '/');
  const char* file = slash != nullptr ? slash + 1 : info.dli_fname;
  const char* library = std::strncmp(file, "libquotient_gpu_interposer", 26) == 0 ? "interposer"
                        : std::strncmp(file, "libcuda", 7) == 0                   ? "driver"
                                                                                  : file;
  return std::string(library) + ":" + (info.dli_sname != nullptr ? info.dli_sname : "?");
}

}  // namespace

bool run_lookup_step(ProbeState& state, const Parts& parts) {
  const std::string& name = parts[0];
  if (name == "gpa") {
    void* function =
        proc_address(parts[1].c_str(), static_cast<int>(number(parts, 2)), number(parts, 3));
    std::printf("gpa %s %s\n", parts[1].c_str(), owner(function).c_str());
  } else if (name == "alloc-v1") {
    auto alloc = reinterpret_cast<AllocV1>(
        proc_address("cuMemAlloc", kBeforeV2, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM));
    CUdeviceptr_v1 pointer = 0;
    const CUresult result = alloc(&pointer, static_cast<unsigned int>(number(parts, 1) * kMiB));
    if (result == CUDA_SUCCESS) state.v1_pointers.push_back(pointer);
    std::printf("alloc-v1 %d\n", result);
  } else if (name == "free-v1") {
    auto free_v1 = reinterpret_cast<FreeV1>(proc_address("cuMemFree", kBeforeV2, 0));
    std::printf("free-v1 %d\n", free_v1(state.v1_pointers.back()));
    state.v1_pointers.pop_back();
  } else if (name == "meminfo-v1") {
    auto info = reinterpret_cast<MemGetInfoV1>(proc_address("cuMemGetInfo", kBeforeV2, 0));
    unsigned int free = 0;
    unsigned int total = 0;
    const CUresult result = info(&free, &total);
    std::printf("meminfo-v1 %d %u %u\n", result, free, total);
  } else if (name == "v1-calls") {
    std::printf("v1-calls %d\n", fakecuda_v1_calls());
  } else {
    return false;
  }
  return true;
}

}  // namespace quotient::interposer::testing
