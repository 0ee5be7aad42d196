#include "interposer/accounting.h"

#include <pthread.h>

#include <cinttypes>
#include <cstdio>
#include <functional>

namespace quotient::interposer {

Accounting& Accounting::instance() {
  static Accounting* const accounting = new Accounting();
  return *accounting;
}

Accounting::Accounting() : config_(config_from_environment()) {
  // fork(): the child owns none of the parent's device memory and needs a slot of its own. The
  // mutex is held across fork so the child never inherits it locked by a vanished thread.
  pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                 [] {
                   Accounting& self = instance();
                   self.mutex_.unlock();
                   self.after_fork_in_child();
                 });
}

void Accounting::after_fork_in_child() {
  std::lock_guard lock(mutex_);
  allocations_.clear();
  graph_charges_.clear();
  pool_charges_.clear();
  for (int device = 0; device < kMaxDevices; ++device) {
    reserve_charged_[device] = false;
    if (ledgers_[device]) ledgers_[device]->forget_slot_after_fork();
  }
}

std::size_t Accounting::KeyHash::operator()(
    const std::pair<AllocationKind, std::uint64_t>& key) const noexcept {
  return std::hash<std::uint64_t>{}(key.second) ^ static_cast<std::size_t>(key.first);
}

Ledger* Accounting::ledger_locked(int device) {
  if (device < 0 || device >= kMaxDevices) return nullptr;
  if (!ledgers_[device] && !ledger_failed_[device]) {
    ledgers_[device] = Ledger::open(config_.ledger_name(device));
    ledger_failed_[device] = !ledgers_[device];
  }
  return ledgers_[device].get();
}

Admission Accounting::admit(const char* api, int device, std::uint64_t bytes) {
  const auto device_limit = config_.limit_for(device);
  if (!device_limit) return Admission::kUnlimited;
  std::lock_guard lock(mutex_);
  Ledger* ledger = ledger_locked(device);
  const bool first = device >= 0 && device < kMaxDevices && !reserve_charged_[device];
  const std::uint64_t charge = bytes + (first ? config_.context_reserve : 0);
  if (ledger != nullptr && ledger->try_charge(charge, *device_limit)) {
    if (first) reserve_charged_[device] = true;
    return Admission::kCharged;
  }
  if (config_.log_refusals) {
    if (ledger == nullptr) {
      std::fprintf(stderr,
                   "quotient-gpu-interposer: %s refused %" PRIu64
                   " bytes on device %d: ledger %s unavailable (failing closed)\n",
                   api, bytes, device, config_.ledger_name(device).c_str());
    } else {
      std::fprintf(stderr,
                   "quotient-gpu-interposer: %s refused %" PRIu64
                   " bytes on device %d: pod usage %" PRIu64 " + %" PRIu64 " > limit %" PRIu64 "\n",
                   api, bytes, device, ledger->usage(), charge, *device_limit);
    }
  }
  return Admission::kRefused;
}

void Accounting::cancel(int device, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  refund_locked(Allocation{bytes, device});
}

void Accounting::refund_locked(const Allocation& allocation) {
  if (Ledger* ledger = ledger_locked(allocation.device)) ledger->refund(allocation.bytes);
}

void Accounting::adjust(int device, std::uint64_t charged, std::uint64_t actual) {
  std::lock_guard lock(mutex_);
  Ledger* ledger = ledger_locked(device);
  if (ledger == nullptr || charged == actual) return;
  if (actual > charged) {
    ledger->force_charge(actual - charged);
  } else {
    ledger->refund(charged - actual);
  }
}

void Accounting::record(AllocationKind kind, std::uint64_t key, Allocation allocation) {
  std::lock_guard lock(mutex_);
  allocations_[{kind, key}] = allocation;
}

std::optional<Allocation> Accounting::take(AllocationKind kind, std::uint64_t key) {
  std::lock_guard lock(mutex_);
  const auto found = allocations_.find({kind, key});
  if (found == allocations_.end()) return std::nullopt;
  const Allocation allocation = found->second;
  allocations_.erase(found);
  return allocation;
}

void Accounting::release(const Allocation& allocation) {
  std::lock_guard lock(mutex_);
  const std::uint64_t retained =
      allocation.pool != 0 ? pool_charges_.freed(allocation.pool, allocation.bytes) : 0;
  refund_locked(Allocation{allocation.bytes - retained, allocation.device});
}

std::optional<std::uint64_t> Accounting::limit(int device) const {
  return config_.limit_for(device);
}

std::optional<std::uint64_t> Accounting::usage(int device) {
  if (!config_.limit_for(device)) return std::nullopt;
  std::lock_guard lock(mutex_);
  Ledger* ledger = ledger_locked(device);
  if (ledger == nullptr) return std::nullopt;
  return ledger->usage();
}

}  // namespace quotient::interposer
