#include "check_support.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace gpu_check {
namespace {

void verdict(const char* word, const std::string& check, const std::string& detail) {
  std::printf("%s %s %s\n", word, check.c_str(), detail.c_str());
  std::fflush(stdout);
}

}  // namespace

void pass(const std::string& check, const std::string& detail) { verdict("PASS", check, detail); }
void fail(const std::string& check, const std::string& detail) { verdict("FAIL", check, detail); }
void skip(const std::string& check, const std::string& detail) { verdict("SKIP", check, detail); }

bool open_device(const std::string& check) {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUresult result = cuInit(0);
  if (result == kCudaSuccess) result = cuDeviceGet(&device, 0);
  if (result == kCudaSuccess) result = cuDevicePrimaryCtxRetain(&context, device);
  if (result == kCudaSuccess) result = cuCtxSetCurrent(context);
  if (result != kCudaSuccess)
    fail(check, "no CUDA context on device 0: error " + std::to_string(result));
  return result == kCudaSuccess;
}

std::string owner(void* function) {
  if (function == nullptr) return "none";
  Dl_info info{};
  if (dladdr(function, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return std::string(slash != nullptr ? slash + 1 : info.dli_fname) + ":" +
         (info.dli_sname != nullptr ? info.dli_sname : "?");
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / kMiB) + " MiB"; }

void conclude(const std::string& check, const Steps& steps, const std::string& detail) {
  if (steps.mismatch().empty()) {
    pass(check, detail);
  } else {
    fail(check, steps.mismatch());
  }
}

Held::~Held() {
  for (const CUdeviceptr pointer : pointers) cuMemFree_v2(pointer);
}

CUresult Held::allocate(std::uint64_t bytes) {
  CUdeviceptr pointer = 0;
  const CUresult result = cuMemAlloc_v2(&pointer, bytes);
  if (result == kCudaSuccess) pointers.push_back(pointer);
  return result;
}

CUresult Held::free_last() {
  const CUresult result = cuMemFree_v2(pointers.back());
  pointers.pop_back();
  return result;
}

void Steps::expect(const std::string& step, int answer, int expected) {
  if (answer == expected || !mismatch_.empty()) return;
  mismatch_ =
      step + " answered " + std::to_string(answer) + ", expected " + std::to_string(expected);
}

}  // namespace gpu_check
