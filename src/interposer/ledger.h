// The shared-memory ledger of one GPU: how many bytes each process of the pod has charged on it.
//
// One POSIX shared-memory object per (pod, device), mapped MAP_SHARED by every process. A robust,
// process-shared mutex guards it, so the check against the limit and the charge are one atomic
// step across processes (HAMi-core checks first and records later: two processes could both pass).
//
// Each process owns one slot (pid, bytes). A process killed with SIGKILL cannot refund, so
// liveness is tested when the lock is recovered (EOWNERDEAD), before refusing an allocation and
// when usage is reported. Liveness is not kill(pid, 0): containers of a pod have separate PID
// namespaces by default, so a pid written by another container is meaningless here, and pids
// are reused. Instead each process holds an open-file-description lock (F_OFD_SETLK) on the byte
// of its slot index; the kernel drops it when the process dies, whatever its namespace, and an
// unlocked byte behind a used slot means the owner is gone. The pid stays in the slot for
// diagnostics.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace quotient::interposer {

inline constexpr std::uint64_t kLedgerMagic = 0x5147'4C45'4447'4552ULL;  // "QGLEDGER"
inline constexpr std::uint32_t kLedgerVersion = 1;
inline constexpr std::size_t kMaxProcessSlots = 256;

struct ProcessSlot {
  std::int64_t pid;  // 0: free
  std::uint64_t bytes;
};

struct LedgerLayout {
  std::atomic<std::uint64_t> magic;  // written last by the creator: the rest is initialised
  std::uint32_t version;
  std::uint32_t slot_count;
  pthread_mutex_t mutex;
  ProcessSlot slots[kMaxProcessSlots];
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the ledger's magic is read by other processes without the lock");

class Ledger {
 public:
  // Opens the ledger called `name` (a shm_open name, "/..."), creating and initialising it if
  // absent. nullptr if it cannot be mapped or has another layout version.
  static std::unique_ptr<Ledger> open(const std::string& name);

  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Charges `bytes` to this process if the pod's usage stays within `limit`; false otherwise
  // (or if the ledger is unusable: fail closed).
  [[nodiscard]] bool try_charge(std::uint64_t bytes, std::uint64_t limit);
  // Charges without a check (a correction after the driver reported the real size).
  void force_charge(std::uint64_t bytes);
  // Gives back bytes charged by this process (never below zero).
  void refund(std::uint64_t bytes);
  // The pod's usage on this device, dead processes' slots reclaimed first.
  [[nodiscard]] std::uint64_t usage();
  // This process's own charge.
  [[nodiscard]] std::uint64_t own_usage();

  // After fork(): the child must not share the parent's slot or its liveness lock.
  void forget_slot_after_fork();

 private:
  Ledger(std::string name, int fd, LedgerLayout* layout);

  // Takes the robust lock; on EOWNERDEAD reclaims dead slots and marks it consistent.
  [[nodiscard]] bool lock();
  void unlock();
  // Finds (or takes) this process's slot; -1 if the table is full.
  int own_slot_locked();
  std::uint64_t reclaim_dead_locked();
  std::uint64_t total_locked() const;
  [[nodiscard]] bool slot_owner_alive(std::size_t index) const;

  std::string name_;
  int fd_;  // also carries the OFD liveness lock of our slot
  LedgerLayout* layout_;
  int slot_ = -1;
};

}  // namespace quotient::interposer
