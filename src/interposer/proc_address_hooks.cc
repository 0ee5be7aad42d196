// Symbol discovery. Most CUDA code never calls cuMemAlloc_v2 by name: cudart dlopens
// libcuda.so.1, looks up cuGetProcAddress_v2 with dlsym on that handle (which searches only
// that library, never the preload) and asks it for every entry point, often with the
// per-thread-default-stream flag (the _ptsz/_ptds variants). So both are wrapped:
//
// - cuGetProcAddress{,_v2} call the real one first, with the caller's version and flags, and
//   swap the answer by identity (real pointer -> our hook). Versions and stream semantics stay
//   the driver's choice; entries we do not wrap pass through.
// - dlsym: a lookup of a cu*/nvml* name whose answer is the real driver's entry we wrap gets our
//   hook instead. RTLD_NEXT lookups are forwarded untouched; glibc resolves "next" relative to
//   the caller, which is now this library, so they search the objects after us (documented
//   limitation, same as HAMi-core).
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags) {
  const auto driver = real<decltype(&cuGetProcAddress)>(Hook::cuGetProcAddress);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(symbol, pfn, cuda_version, flags);
  if (result == CUDA_SUCCESS && pfn != nullptr) {
    *pfn = quotient::interposer::hook_for_real_pointer(*pfn);
  }
  return result;
}

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* symbol_status) {
  const auto driver = real<decltype(&cuGetProcAddress_v2)>(Hook::cuGetProcAddress_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(symbol, pfn, cuda_version, flags, symbol_status);
  if (result == CUDA_SUCCESS && pfn != nullptr) {
    *pfn = quotient::interposer::hook_for_real_pointer(*pfn);
  }
  return result;
}

QUOTIENT_EXPORT void* dlsym(void* handle, const char* name) noexcept {
  void* found = quotient::interposer::real_dlsym(handle, name);
  if (handle == RTLD_NEXT) return found;
  return quotient::interposer::hook_for_dlsym_result(name, found);
}

}  // extern "C"
