// The process-wide state behind the hooks: configuration, one ledger per limited device, and a
// map from every charged allocation to (bytes, device) so frees refund exactly what was charged.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "interposer/accounting_types.h"
#include "interposer/config.h"
#include "interposer/graph_charges.h"
#include "interposer/ledger.h"
#include "interposer/pool_charges.h"

namespace quotient::interposer {

enum class Admission {
  kUnlimited,  // no limit on this device: call the driver, charge nothing
  kCharged,    // charged to the ledger: refund if the driver call fails
  kRefused,    // answer CUDA_ERROR_OUT_OF_MEMORY
};

class Accounting {
 public:
  // The process's instance, created on first use and never destroyed (hooks may run from other
  // libraries' exit handlers).
  static Accounting& instance();

  // Charges `bytes` (plus, on a device's first allocation, the context reserve) if the limit
  // allows; logs a refusal when QUOTIENT_GPU_LOG=1. `api` names the entry point in the log.
  Admission admit(const char* api, int device, std::uint64_t bytes);
  // Undoes an admission whose driver call failed.
  void cancel(int device, std::uint64_t bytes);
  // Corrects a charge once the driver reports the real size (pitched allocations).
  void adjust(int device, std::uint64_t charged, std::uint64_t actual);

  void record(AllocationKind kind, std::uint64_t key, Allocation allocation);
  // Removes and returns the allocation, or nullopt if we never charged it (pass it through).
  std::optional<Allocation> take(AllocationKind kind, std::uint64_t key);
  // Gives back the bytes of a freed allocation, less what its memory pool retains.
  void release(const Allocation& allocation);

  // Graph memory (graph_charges.h): runs `update` on the graph charges under the lock and
  // refunds the allocations it returns (those no graph or executable holds any more).
  template <class Update>
  void update_graph_charges(Update&& update) {
    std::lock_guard lock(mutex_);
    for (const Allocation& due : update(graph_charges_)) refund_locked(due);
  }

  // Pool memory (pool_charges.h), likewise: `update` may return retained memory to refund.
  template <class Update>
  auto update_pool_charges(Update&& update) {
    std::lock_guard lock(mutex_);
    auto result = update(pool_charges_);
    if constexpr (std::is_same_v<decltype(result), std::optional<Allocation>>) {
      if (result) refund_locked(*result);
    }
    return result;
  }

  [[nodiscard]] std::optional<std::uint64_t> limit(int device) const;
  // The pod's usage on the device; nullopt if the device has no limit or no ledger.
  [[nodiscard]] std::optional<std::uint64_t> usage(int device);

 private:
  Accounting();
  Ledger* ledger_locked(int device);
  void refund_locked(const Allocation& allocation);
  void after_fork_in_child();

  struct KeyHash {
    std::size_t operator()(const std::pair<AllocationKind, std::uint64_t>& key) const noexcept;
  };

  Config config_;
  std::mutex mutex_;
  std::unique_ptr<Ledger> ledgers_[kMaxDevices];
  bool ledger_failed_[kMaxDevices] = {};
  bool reserve_charged_[kMaxDevices] = {};
  std::unordered_map<std::pair<AllocationKind, std::uint64_t>, Allocation, KeyHash> allocations_;
  GraphCharges graph_charges_;
  PoolCharges pool_charges_;
};

}  // namespace quotient::interposer
