// What every allocating hook does: find the device, admit the bytes, call the driver, refund on
// failure, remember the allocation for its free.
#pragma once

#include <cstdint>
#include <optional>

#include "interposer/accounting.h"
#include "interposer/cuda_abi.h"

namespace quotient::interposer {

// The device of the calling thread's current context; nullopt without one (the driver will
// refuse the allocation itself, so it is passed through uncharged).
std::optional<int> current_device();

struct DriverOutcome {
  CUresult result;
  std::uint64_t key;  // pointer, array or handle the allocation is freed by
};

// Admits `bytes` on `device`, then runs `call` (the real driver call). Beyond the limit the
// driver is never called and the answer is CUDA_ERROR_OUT_OF_MEMORY.
template <class DriverCall>
CUresult charged_call(const char* api, int device, std::uint64_t bytes, AllocationKind kind,
                      DriverCall&& call) {
  Accounting& accounting = Accounting::instance();
  switch (accounting.admit(api, device, bytes)) {
    case Admission::kRefused:
      return CUDA_ERROR_OUT_OF_MEMORY;
    case Admission::kUnlimited:
      return call().result;
    case Admission::kCharged:
      break;
  }
  const DriverOutcome outcome = call();
  if (outcome.result != CUDA_SUCCESS) {
    accounting.cancel(device, bytes);
  } else {
    accounting.record(kind, outcome.key, Allocation{bytes, device});
  }
  return outcome.result;
}

// Frees through `call`, refunding what was charged for `key` if the driver accepted the free.
// Unknown keys (allocated before a limit applied, or by other means) pass through untouched.
template <class DriverCall>
CUresult refunded_call(AllocationKind kind, std::uint64_t key, DriverCall&& call) {
  Accounting& accounting = Accounting::instance();
  const auto allocation = accounting.take(kind, key);
  const CUresult result = call();
  if (allocation) {
    if (result == CUDA_SUCCESS) {
      accounting.release(*allocation);
    } else {
      accounting.record(kind, key, *allocation);  // still allocated: keep the charge
    }
  }
  return result;
}

}  // namespace quotient::interposer
