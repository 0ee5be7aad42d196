#include "interposer/hook_support.h"

#include <algorithm>

#include "interposer/symbol_table.h"

namespace quotient::interposer {
namespace {

constexpr std::uint64_t kPitchAlignment = 512;  // the largest texture pitch alignment in use

}  // namespace

std::optional<int> current_device() {
  const auto get_device = real<CUresult (*)(CUdevice*)>(Helper::cuCtxGetDevice);
  CUdevice device = -1;
  if (get_device == nullptr || get_device(&device) != CUDA_SUCCESS) return std::nullopt;
  return device;
}

std::uint64_t pitch_estimate(std::uint64_t width, std::uint64_t height) {
  return (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment * height;
}

void correct_charge(AllocationKind kind, std::uint64_t key, std::uint64_t actual) {
  Accounting& accounting = Accounting::instance();
  if (auto allocation = accounting.take(kind, key)) {
    accounting.adjust(allocation->device, allocation->bytes, actual);
    accounting.record(kind, key, Allocation{actual, allocation->device});
  }
}

void clamp_memory_info(std::uint64_t& free, std::uint64_t& total) {
  const auto device = current_device();
  if (!device) return;
  Accounting& accounting = Accounting::instance();
  const auto limit = accounting.limit(*device);
  if (!limit) return;
  // Without a ledger nothing can be admitted (fail closed): report no headroom.
  const std::uint64_t usage = accounting.usage(*device).value_or(*limit);
  const std::uint64_t headroom = usage < *limit ? *limit - usage : 0;
  total = std::min(total, *limit);
  free = std::min({free, headroom, total});
}

std::uint64_t clamp_total(int device, std::uint64_t physical_total) {
  const auto limit = Accounting::instance().limit(device);
  return limit ? std::min(physical_total, *limit) : physical_total;
}

}  // namespace quotient::interposer
