// What every allocating hook does: find the device, admit the bytes, call the driver, refund on
// failure, remember the allocation for its free. Also what the memory queries report.
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

// One allocation returned through `dptr` (the 64-bit CUdeviceptr, or the v1 ABI's 32-bit one) by
// `driver_call`, charged on the current device.
template <class Pointer, class DriverCall>
CUresult allocate_on_current_device(const char* api, Pointer* dptr, std::uint64_t bytes,
                                    DriverCall&& driver_call) {
  const auto device = current_device();
  if (dptr == nullptr || !device) return driver_call();
  return charged_call(api, *device, bytes, AllocationKind::kDevicePointer, [&] {
    const CUresult result = driver_call();
    return DriverOutcome{result, result == CUDA_SUCCESS ? std::uint64_t{*dptr} : 0};
  });
}

// Opaque driver handles (arrays, graphs, pools) as keys of the allocation records.
inline std::uint64_t handle_key(const void* handle) {
  return reinterpret_cast<std::uintptr_t>(handle);
}

// An object returned through `handle` (a CUDA array or mipmapped array) that holds `bytes` on the
// current device. 0 bytes (an array backed by memory mapped into it later) is passed through.
template <class Handle, class DriverCall>
CUresult create_on_current_device(const char* api, AllocationKind kind, Handle* handle,
                                  std::uint64_t bytes, DriverCall&& driver_call) {
  const auto device = current_device();
  if (handle == nullptr || bytes == 0 || !device) return driver_call();
  return charged_call(api, *device, bytes, kind, [&] {
    const CUresult result = driver_call();
    return DriverOutcome{result, result == CUDA_SUCCESS ? handle_key(*handle) : 0};
  });
}

// The charge of a pitched allocation before the call: the pitch is the driver's choice, so the
// width rounded up to the largest pitch alignment in use (512 bytes), times the height.
std::uint64_t pitch_estimate(std::uint64_t width, std::uint64_t height);
// Replaces the charge of `key` by `actual` once the driver reported the real size.
void correct_charge(AllocationKind kind, std::uint64_t key, std::uint64_t actual);

template <class Pointer, class Size, class DriverCall>
CUresult allocate_pitched(const char* api, Pointer* dptr, Size* pitch, std::uint64_t width,
                          std::uint64_t height, DriverCall&& driver_call) {
  if (pitch == nullptr) return driver_call();
  const CUresult result =
      allocate_on_current_device(api, dptr, pitch_estimate(width, height), driver_call);
  if (result == CUDA_SUCCESS && dptr != nullptr) {
    correct_charge(AllocationKind::kDevicePointer, std::uint64_t{*dptr},
                   std::uint64_t{*pitch} * height);
  }
  return result;
}

// The logical GPU in a (free, total) answer of the driver for the current device: total =
// min(limit, physical), free = min(physical free, limit − pod usage, total), never negative.
// Unchanged on a device without a limit.
void clamp_memory_info(std::uint64_t& free, std::uint64_t& total);
// min(limit of `device`, physical total).
std::uint64_t clamp_total(int device, std::uint64_t physical_total);

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
