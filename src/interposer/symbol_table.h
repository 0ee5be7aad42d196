// Where the interposer finds the real entry points, and which of its hooks stands for which.
//
// The real dlsym comes from dlvsym(RTLD_NEXT, "dlsym", <version>) rather than glibc's private
// __libc_dlsym: dlvsym is public ABI, keeps dlsym's semantics (dlerror state, RTLD_DEFAULT),
// while __libc_dlsym is GLIBC_PRIVATE and may change under us. The versions tried are
// GLIBC_2.34 (libdl merged into libc), GLIBC_2.2.5 (x86-64) and GLIBC_2.17 (aarch64).
//
// The real driver is dlopen("libcuda.so.1") (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) on the first
// CUDA call, never from a constructor; NVML likewise with libnvidia-ml.so.1.
#pragma once

namespace quotient::interposer {

// Every hooked entry point: X(name). The driver's and NVML's lists resolve in different libraries.
//
// Every name cuda.h maps an entry point to is listed, for every ABI version the driver still
// exports: the v1 names of the pre-3.2 ABI (cuMemAlloc, what cuGetProcAddress answers for an old
// cudaVersion) and the per-thread-default-stream variants. Those are _ptsz only: the _ptds
// variants are synchronous copies and sets (cuMemcpy_ptds, cuMemsetD8_v2_ptds...), which
// allocate nothing. Entry points without a per-thread variant (cuMemAlloc_v2) are what the
// driver answers for a per-thread lookup too, so they are covered by their one hook.
#define QUOTIENT_CUDA_HOOKS(X)         \
  X(cuMemAlloc_v2)                     \
  X(cuMemAlloc)                        \
  X(cuMemAllocPitch_v2)                \
  X(cuMemAllocPitch)                   \
  X(cuMemAllocManaged)                 \
  X(cuMemAllocAsync)                   \
  X(cuMemAllocAsync_ptsz)              \
  X(cuMemAllocFromPoolAsync)           \
  X(cuMemAllocFromPoolAsync_ptsz)      \
  X(cuMemPoolSetAttribute)             \
  X(cuMemPoolTrimTo)                   \
  X(cuMemPoolDestroy)                  \
  X(cuMemFree_v2)                      \
  X(cuMemFree)                         \
  X(cuMemFreeAsync)                    \
  X(cuMemFreeAsync_ptsz)               \
  X(cuArrayCreate_v2)                  \
  X(cuArrayCreate)                     \
  X(cuArray3DCreate_v2)                \
  X(cuArray3DCreate)                   \
  X(cuArrayDestroy)                    \
  X(cuMipmappedArrayCreate)            \
  X(cuMipmappedArrayDestroy)           \
  X(cuMemCreate)                       \
  X(cuMemRelease)                      \
  X(cuGraphAddMemAllocNode)            \
  X(cuGraphAddNode)                    \
  X(cuGraphAddNode_v2)                 \
  X(cuGraphInstantiate)                \
  X(cuGraphInstantiate_v2)             \
  X(cuGraphInstantiateWithFlags)       \
  X(cuGraphInstantiateWithParams)      \
  X(cuGraphInstantiateWithParams_ptsz) \
  X(cuGraphDestroy)                    \
  X(cuGraphExecDestroy)                \
  X(cuMemGetInfo_v2)                   \
  X(cuMemGetInfo)                      \
  X(cuDeviceTotalMem_v2)               \
  X(cuDeviceTotalMem)                  \
  X(cuGetProcAddress)                  \
  X(cuGetProcAddress_v2)
#define QUOTIENT_NVML_HOOKS(X) \
  X(nvmlDeviceGetMemoryInfo)   \
  X(nvmlDeviceGetMemoryInfo_v2)

enum class Hook {
#define QUOTIENT_HOOK_ENUM(name) name,
  QUOTIENT_CUDA_HOOKS(QUOTIENT_HOOK_ENUM) QUOTIENT_NVML_HOOKS(QUOTIENT_HOOK_ENUM)
#undef QUOTIENT_HOOK_ENUM
      kCount
};

// Real entry points the hooks call but do not replace.
enum class Helper { cuCtxGetDevice, cuDeviceGetMemPool, nvmlDeviceGetIndex, kCount };

// The real dlsym (never our override); nullptr only if glibc offers none of the versions.
void* real_dlsym(void* handle, const char* name);

// The real function behind a hook / helper, resolving the libraries on first use; nullptr if
// the library or the symbol is absent.
void* real_function(Hook hook);
void* real_function(Helper helper);

// Our hook for a real function pointer (cuGetProcAddress answers), or `real` itself.
void* hook_for_real_pointer(void* real);
// Our hook if `found` (what the real dlsym returned for `name`) is the real entry we wrap.
void* hook_for_dlsym_result(const char* name, void* found);

template <class Function>
Function real(Hook hook) {
  return reinterpret_cast<Function>(real_function(hook));
}
template <class Function>
Function real(Helper helper) {
  return reinterpret_cast<Function>(real_function(helper));
}

}  // namespace quotient::interposer
