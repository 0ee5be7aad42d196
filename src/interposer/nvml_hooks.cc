// NVML memory queries, so nvidia-smi in the pod shows the logical GPU: total = min(limit,
// physical), used = the pod's ledger usage, free = what is left, all clamped (HAMi-core's
// unsigned subtraction produced 17 TB readings, HAMi #1181).
//
// NVML numbers devices by PCI order while the ledger is keyed by CUDA ordinal: the two agree
// when CUDA_DEVICE_ORDER=PCI_BUS_ID or a single GPU is visible (see README, "left").
#include <algorithm>
#include <cstdint>
#include <optional>

#include "interposer/accounting.h"
#include "interposer/hooks.h"
#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

struct LogicalMemory {
  std::uint64_t total;
  std::uint64_t used;
};

std::optional<LogicalMemory> logical_memory(nvmlDevice_t device, std::uint64_t physical_total) {
  const auto get_index =
      real<nvmlReturn_t (*)(nvmlDevice_t, unsigned int*)>(Helper::nvmlDeviceGetIndex);
  unsigned int index = 0;
  if (get_index == nullptr || get_index(device, &index) != NVML_SUCCESS) return std::nullopt;
  Accounting& accounting = Accounting::instance();
  const auto limit = accounting.limit(static_cast<int>(index));
  if (!limit) return std::nullopt;
  const std::uint64_t total = std::min<std::uint64_t>(physical_total, *limit);
  const std::uint64_t used = std::min(total, accounting.usage(static_cast<int>(index)).value_or(0));
  return LogicalMemory{total, used};
}

}  // namespace
}  // namespace quotient::interposer

using quotient::interposer::Hook;
using quotient::interposer::real;

extern "C" {

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  const auto library = real<decltype(&nvmlDeviceGetMemoryInfo)>(Hook::nvmlDeviceGetMemoryInfo);
  if (library == nullptr) return NVML_ERROR_UNINITIALIZED;
  const nvmlReturn_t result = library(device, memory);
  if (result != NVML_SUCCESS || memory == nullptr) return result;
  if (const auto logical = quotient::interposer::logical_memory(device, memory->total)) {
    memory->total = logical->total;
    memory->used = logical->used;
    memory->free = logical->total - logical->used;
  }
  return result;
}

// v2 also reports memory the driver reserves; it is kept and taken out of free.
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  const auto library =
      real<decltype(&nvmlDeviceGetMemoryInfo_v2)>(Hook::nvmlDeviceGetMemoryInfo_v2);
  if (library == nullptr) return NVML_ERROR_UNINITIALIZED;
  const nvmlReturn_t result = library(device, memory);
  if (result != NVML_SUCCESS || memory == nullptr) return result;
  if (const auto logical = quotient::interposer::logical_memory(device, memory->total)) {
    memory->total = logical->total;
    memory->used = logical->used;
    const std::uint64_t taken =
        std::min<std::uint64_t>(logical->total, logical->used + memory->reserved);
    memory->free = logical->total - taken;
  }
  return result;
}

}  // extern "C"
