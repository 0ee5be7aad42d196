#include "interposer/symbol_table.h"

#include <dlfcn.h>
#include <pthread.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "interposer/hooks.h"

namespace quotient::interposer {
namespace {

using DlsymFunction = void* (*)(void*, const char*);

enum class Library { kCuda, kNvml };

struct HookEntry {
  const char* name;
  void* hook;
  Library library;
};

constexpr auto kHookCount = static_cast<std::size_t>(Hook::kCount);
constexpr auto kHelperCount = static_cast<std::size_t>(Helper::kCount);

const std::array<HookEntry, kHookCount>& hook_entries() {
  static const std::array<HookEntry, kHookCount> entries{{
#define QUOTIENT_CUDA_ENTRY(name) {#name, reinterpret_cast<void*>(&::name), Library::kCuda},
#define QUOTIENT_NVML_ENTRY(name) {#name, reinterpret_cast<void*>(&::name), Library::kNvml},
      QUOTIENT_CUDA_HOOKS(QUOTIENT_CUDA_ENTRY) QUOTIENT_NVML_HOOKS(QUOTIENT_NVML_ENTRY)
#undef QUOTIENT_CUDA_ENTRY
#undef QUOTIENT_NVML_ENTRY
  }};
  return entries;
}

constexpr std::array<const char*, kHelperCount> kHelperNames{"cuCtxGetDevice", "cuDeviceGetMemPool",
                                                             "nvmlDeviceGetIndex"};
constexpr std::array<Library, kHelperCount> kHelperLibraries{Library::kCuda, Library::kCuda,
                                                             Library::kNvml};

std::array<std::atomic<void*>, kHookCount> real_hooks{};
std::array<std::atomic<void*>, kHelperCount> real_helpers{};
pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
// Set while this thread loads a library: a constructor in it calling dlsym must not re-enter
// pthread_once (it would wait for itself).
thread_local bool loading_library = false;

void resolve(Library library, const char* soname) {
  loading_library = true;
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle != nullptr) {
    const auto& entries = hook_entries();
    for (std::size_t index = 0; index < kHookCount; ++index) {
      if (entries[index].library != library) continue;
      real_hooks[index].store(real_dlsym(handle, entries[index].name), std::memory_order_release);
    }
    for (std::size_t index = 0; index < kHelperCount; ++index) {
      if (kHelperLibraries[index] != library) continue;
      real_helpers[index].store(real_dlsym(handle, kHelperNames[index]), std::memory_order_release);
    }
  }
  loading_library = false;
}

void resolve_cuda() { resolve(Library::kCuda, "libcuda.so.1"); }
void resolve_nvml() { resolve(Library::kNvml, "libnvidia-ml.so.1"); }

void ensure_resolved(Library library) {
  if (loading_library) return;
  pthread_once(library == Library::kCuda ? &cuda_once : &nvml_once,
               library == Library::kCuda ? resolve_cuda : resolve_nvml);
}

DlsymFunction find_real_dlsym() {
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"}) {
    if (void* found = dlvsym(RTLD_NEXT, "dlsym", version)) {
      return reinterpret_cast<DlsymFunction>(found);
    }
  }
  return nullptr;
}

}  // namespace

void* real_dlsym(void* handle, const char* name) {
  // No function-local static: its guard would recurse if dlvsym's allocations reached a
  // malloc that calls dlsym. Racing threads store the same pointer.
  static std::atomic<DlsymFunction> cached{nullptr};
  DlsymFunction function = cached.load(std::memory_order_acquire);
  if (function == nullptr) {
    function = find_real_dlsym();
    cached.store(function, std::memory_order_release);
  }
  return function != nullptr ? function(handle, name) : nullptr;
}

void* real_function(Hook hook) {
  const auto index = static_cast<std::size_t>(hook);
  ensure_resolved(hook_entries()[index].library);
  return real_hooks[index].load(std::memory_order_acquire);
}

void* real_function(Helper helper) {
  const auto index = static_cast<std::size_t>(helper);
  ensure_resolved(kHelperLibraries[index]);
  return real_helpers[index].load(std::memory_order_acquire);
}

void* hook_for_real_pointer(void* real) {
  if (real == nullptr) return real;
  ensure_resolved(Library::kCuda);
  for (std::size_t index = 0; index < kHookCount; ++index) {
    if (real_hooks[index].load(std::memory_order_acquire) == real) {
      return hook_entries()[index].hook;
    }
  }
  return real;
}

void* hook_for_dlsym_result(const char* name, void* found) {
  if (name == nullptr || found == nullptr || loading_library) return found;
  const bool cuda = std::strncmp(name, "cu", 2) == 0;
  const bool nvml = std::strncmp(name, "nvml", 4) == 0;
  if (!cuda && !nvml) return found;
  ensure_resolved(cuda ? Library::kCuda : Library::kNvml);
  const auto& entries = hook_entries();
  for (std::size_t index = 0; index < kHookCount; ++index) {
    if (std::strcmp(entries[index].name, name) != 0) continue;
    void* real = real_hooks[index].load(std::memory_order_acquire);
    // Only the driver's own entry (or ours) is replaced: a same-named symbol of another library
    // is not something we can forward to.
    if (real != nullptr && (found == real || found == entries[index].hook)) {
      return entries[index].hook;
    }
    return found;
  }
  return found;
}

}  // namespace quotient::interposer
