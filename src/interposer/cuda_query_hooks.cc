// Memory queries: applications (and frameworks' caching allocators) size themselves by these,
// so they report the logical GPU: total = min(limit, physical), free = min(physical free,
// limit − pod usage), never negative.
#include <algorithm>
#include <cstdint>

#include "interposer/hook_support.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

using quotient::interposer::Accounting;
using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  const auto driver = real<decltype(&cuMemGetInfo_v2)>(Hook::cuMemGetInfo_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(free, total);
  if (result != CUDA_SUCCESS || free == nullptr || total == nullptr) return result;
  const auto device = quotient::interposer::current_device();
  if (!device) return result;
  Accounting& accounting = Accounting::instance();
  const auto limit = accounting.limit(*device);
  if (!limit) return result;
  // Without a ledger nothing can be admitted (fail closed): report no headroom.
  const std::uint64_t usage = accounting.usage(*device).value_or(*limit);
  const std::uint64_t headroom = usage < *limit ? *limit - usage : 0;
  *total = std::min<std::uint64_t>(*total, *limit);
  *free = std::min<std::uint64_t>({*free, headroom, *total});
  return result;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  const auto driver = real<decltype(&cuDeviceTotalMem_v2)>(Hook::cuDeviceTotalMem_v2);
  if (driver == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult result = driver(bytes, device);
  if (result != CUDA_SUCCESS || bytes == nullptr) return result;
  if (const auto limit = Accounting::instance().limit(device)) {
    *bytes = std::min<std::uint64_t>(*bytes, *limit);
  }
  return result;
}

}  // extern "C"
