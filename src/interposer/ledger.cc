#include "interposer/ledger.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace quotient::interposer {
namespace {

constexpr auto kInitialisationWait = std::chrono::seconds(2);
constexpr auto kPollInterval = std::chrono::milliseconds(1);

// OFD lock on byte `index` of the ledger file: held by the slot's owner for its lifetime.
flock slot_lock_request(std::size_t index, short type) {
  flock request{};
  request.l_type = type;
  request.l_whence = SEEK_SET;
  request.l_start = static_cast<off_t>(index);
  request.l_len = 1;
  return request;
}

bool initialise_mutex(pthread_mutex_t* mutex) {
  pthread_mutexattr_t attributes;
  if (pthread_mutexattr_init(&attributes) != 0) return false;
  const bool ok = pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED) == 0 &&
                  pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST) == 0 &&
                  pthread_mutex_init(mutex, &attributes) == 0;
  pthread_mutexattr_destroy(&attributes);
  return ok;
}

LedgerLayout* map_layout(int fd) {
  void* address = mmap(nullptr, sizeof(LedgerLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return address == MAP_FAILED ? nullptr : static_cast<LedgerLayout*>(address);
}

// The creator truncates, initialises, then publishes the magic; a process that opens the object
// meanwhile waits (bounded) for both.
LedgerLayout* map_existing(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + kInitialisationWait;
  struct stat status {};
  while (fstat(fd, &status) == 0 &&
         static_cast<std::size_t>(status.st_size) < sizeof(LedgerLayout)) {
    if (std::chrono::steady_clock::now() > deadline) return nullptr;
    std::this_thread::sleep_for(kPollInterval);
  }
  LedgerLayout* layout = map_layout(fd);
  if (layout == nullptr) return nullptr;
  while (layout->magic.load(std::memory_order_acquire) != kLedgerMagic) {
    if (std::chrono::steady_clock::now() > deadline) {
      munmap(layout, sizeof(LedgerLayout));
      return nullptr;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  if (layout->version != kLedgerVersion || layout->slot_count != kMaxProcessSlots) {
    munmap(layout, sizeof(LedgerLayout));
    return nullptr;
  }
  return layout;
}

LedgerLayout* create_layout(int fd) {
  // Containers of a pod may run as different users; the IPC namespace confines the object to
  // the pod.
  fchmod(fd, 0666);
  if (ftruncate(fd, static_cast<off_t>(sizeof(LedgerLayout))) != 0) return nullptr;
  LedgerLayout* layout = map_layout(fd);
  if (layout == nullptr) return nullptr;
  layout->version = kLedgerVersion;
  layout->slot_count = kMaxProcessSlots;
  for (auto& slot : layout->slots) slot = ProcessSlot{0, 0};
  if (!initialise_mutex(&layout->mutex)) {
    munmap(layout, sizeof(LedgerLayout));
    return nullptr;
  }
  layout->magic.store(kLedgerMagic, std::memory_order_release);
  return layout;
}

}  // namespace

std::unique_ptr<Ledger> Ledger::open(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  LedgerLayout* layout = nullptr;
  if (fd >= 0) {
    layout = create_layout(fd);
  } else if (errno == EEXIST) {
    fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd >= 0) layout = map_existing(fd);
  }
  if (layout == nullptr) {
    if (fd >= 0) close(fd);
    return nullptr;
  }
  return std::unique_ptr<Ledger>(new Ledger(name, fd, layout));
}

Ledger::Ledger(std::string name, int fd, LedgerLayout* layout)
    : name_(std::move(name)), fd_(fd), layout_(layout) {}

Ledger::~Ledger() {
  munmap(layout_, sizeof(LedgerLayout));
  if (fd_ >= 0) close(fd_);
}

bool Ledger::lock() {
  const int result = pthread_mutex_lock(&layout_->mutex);
  if (result == 0) return true;
  if (result == EOWNERDEAD) {
    // The previous holder died inside the critical section; its slot updates are single stores,
    // so the table is consistent, and its own slot is released with its OFD lock.
    reclaim_dead_locked();
    pthread_mutex_consistent(&layout_->mutex);
    return true;
  }
  return false;  // ENOTRECOVERABLE: fail closed
}

void Ledger::unlock() { pthread_mutex_unlock(&layout_->mutex); }

bool Ledger::slot_owner_alive(std::size_t index) const {
  if (static_cast<int>(index) == slot_) return true;  // our own OFD lock never conflicts with us
  flock request = slot_lock_request(index, F_WRLCK);
  if (fcntl(fd_, F_OFD_GETLK, &request) != 0) return true;  // unknown: keep the charge
  return request.l_type != F_UNLCK;
}

std::uint64_t Ledger::reclaim_dead_locked() {
  std::uint64_t reclaimed = 0;
  for (std::size_t index = 0; index < kMaxProcessSlots; ++index) {
    ProcessSlot& slot = layout_->slots[index];
    if (slot.pid == 0 || slot_owner_alive(index)) continue;
    reclaimed += slot.bytes;
    slot = ProcessSlot{0, 0};
  }
  return reclaimed;
}

std::uint64_t Ledger::total_locked() const {
  std::uint64_t total = 0;
  for (const auto& slot : layout_->slots) total += slot.bytes;
  return total;
}

int Ledger::own_slot_locked() {
  if (slot_ >= 0) return slot_;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t index = 0; index < kMaxProcessSlots; ++index) {
      if (layout_->slots[index].pid != 0) continue;
      flock request = slot_lock_request(index, F_WRLCK);
      if (fcntl(fd_, F_OFD_SETLK, &request) != 0) continue;  // a dying owner still holds it
      layout_->slots[index] = ProcessSlot{getpid(), 0};
      slot_ = static_cast<int>(index);
      return slot_;
    }
    reclaim_dead_locked();  // full: free the slots of dead processes and try once more
  }
  return -1;
}

bool Ledger::try_charge(std::uint64_t bytes, std::uint64_t limit) {
  if (!lock()) return false;
  bool charged = false;
  const int slot = own_slot_locked();
  if (slot >= 0) {
    std::uint64_t total = total_locked();
    if (total + bytes > limit || total + bytes < total) total -= reclaim_dead_locked();
    if (total + bytes <= limit && total + bytes >= total) {
      layout_->slots[slot].bytes += bytes;
      charged = true;
    }
  }
  unlock();
  return charged;
}

void Ledger::force_charge(std::uint64_t bytes) {
  if (!lock()) return;
  if (const int slot = own_slot_locked(); slot >= 0) layout_->slots[slot].bytes += bytes;
  unlock();
}

void Ledger::refund(std::uint64_t bytes) {
  if (!lock()) return;
  if (slot_ >= 0) {
    std::uint64_t& own = layout_->slots[slot_].bytes;
    own -= bytes < own ? bytes : own;
  }
  unlock();
}

std::uint64_t Ledger::usage() {
  if (!lock()) return 0;
  reclaim_dead_locked();
  const std::uint64_t total = total_locked();
  unlock();
  return total;
}

std::uint64_t Ledger::own_usage() {
  if (!lock()) return 0;
  const std::uint64_t own = slot_ >= 0 ? layout_->slots[slot_].bytes : 0;
  unlock();
  return own;
}

void Ledger::forget_slot_after_fork() {
  // The inherited descriptor shares the parent's open file description, hence its OFD lock:
  // reopen so the child's slot gets a lock of its own. Closing ours leaves the parent's intact.
  const int fd = shm_open(name_.c_str(), O_RDWR | O_CLOEXEC, 0);
  close(fd_);
  fd_ = fd;
  slot_ = -1;
}

}  // namespace quotient::interposer
