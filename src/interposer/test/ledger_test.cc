// The shared-memory ledger in-process: two Ledger objects opened on one name behave like two
// processes (each has its own open file description, hence its own liveness lock).
#include "interposer/ledger.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace quotient::interposer {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    name_ = "/quotient-ledger-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  }
  void TearDown() override { shm_unlink(name_.c_str()); }

  // A child that opens the ledger, charges `bytes`, optionally dies holding the ledger's lock,
  // reports through a pipe and waits to be killed.
  pid_t start_holder(std::uint64_t bytes, bool hold_lock) {
    int ready[2];
    EXPECT_EQ(pipe(ready), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      auto ledger = Ledger::open(name_);
      bool ok = ledger && ledger->try_charge(bytes, kGiB);
      if (ok && hold_lock) {
        const int fd = shm_open(name_.c_str(), O_RDWR, 0);
        auto* layout = static_cast<LedgerLayout*>(
            mmap(nullptr, sizeof(LedgerLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
        ok = pthread_mutex_lock(&layout->mutex) == 0;
      }
      const char status = ok ? 'y' : 'n';
      if (write(ready[1], &status, 1) != 1) _exit(1);
      while (true) pause();
    }
    char status = 0;
    EXPECT_EQ(read(ready[0], &status, 1), 1);
    EXPECT_EQ(status, 'y');
    close(ready[0]);
    close(ready[1]);
    return pid;
  }

  static void kill_hard(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }

  std::string name_;
};

TEST_F(LedgerTest, ChargesUpToTheLimitAndRefunds) {
  auto ledger = Ledger::open(name_);
  ASSERT_TRUE(ledger);
  EXPECT_TRUE(ledger->try_charge(400 * kMiB, kGiB));
  EXPECT_TRUE(ledger->try_charge(400 * kMiB, kGiB));
  EXPECT_FALSE(ledger->try_charge(400 * kMiB, kGiB));
  EXPECT_EQ(ledger->usage(), 800 * kMiB);
  ledger->refund(400 * kMiB);
  EXPECT_TRUE(ledger->try_charge(400 * kMiB, kGiB));
  ledger->refund(10 * kGiB);  // more than charged: floors at zero
  EXPECT_EQ(ledger->usage(), 0U);
}

TEST_F(LedgerTest, TwoOpenersShareTheUsage) {
  auto first = Ledger::open(name_);
  auto second = Ledger::open(name_);
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(first->try_charge(600 * kMiB, kGiB));
  EXPECT_FALSE(second->try_charge(600 * kMiB, kGiB));
  EXPECT_EQ(second->usage(), 600 * kMiB);
  EXPECT_EQ(second->own_usage(), 0U);
  // The first is alive (its liveness lock is held): its charge is not reclaimed.
  EXPECT_EQ(first->own_usage(), 600 * kMiB);
}

TEST_F(LedgerTest, ConcurrentChargesFromManyThreadsNeverOvershoot) {
  auto first = Ledger::open(name_);
  auto second = Ledger::open(name_);
  ASSERT_TRUE(first && second);
  std::atomic<int> succeeded{0};
  std::vector<std::thread> threads;
  for (int index = 0; index < 16; ++index) {
    Ledger* ledger = index % 2 == 0 ? first.get() : second.get();
    threads.emplace_back([ledger, &succeeded] {
      for (int attempt = 0; attempt < 20; ++attempt) {
        if (ledger->try_charge(10 * kMiB, kGiB)) ++succeeded;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(succeeded.load(), 102);  // floor(1024 / 10)
  EXPECT_EQ(first->usage(), 1020 * kMiB);
}

TEST_F(LedgerTest, AKilledProcessesChargeIsReclaimed) {
  auto ledger = Ledger::open(name_);
  ASSERT_TRUE(ledger);
  const pid_t holder = start_holder(800 * kMiB, false);
  EXPECT_EQ(ledger->usage(), 800 * kMiB);
  EXPECT_FALSE(ledger->try_charge(400 * kMiB, kGiB));
  kill_hard(holder);
  EXPECT_TRUE(ledger->try_charge(kGiB, kGiB));
}

TEST_F(LedgerTest, AProcessKilledHoldingTheLockDoesNotBlockOthers) {
  auto ledger = Ledger::open(name_);
  ASSERT_TRUE(ledger);
  const pid_t holder = start_holder(500 * kMiB, true);
  kill_hard(holder);
  // EOWNERDEAD: the lock is recovered, the dead holder's charge reclaimed.
  EXPECT_EQ(ledger->usage(), 0U);
  EXPECT_TRUE(ledger->try_charge(kGiB, kGiB));
  EXPECT_EQ(ledger->usage(), kGiB);
}

TEST_F(LedgerTest, ALedgerOfAnotherLayoutVersionIsRejected) {
  const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, sizeof(LedgerLayout)), 0);
  auto* layout = static_cast<LedgerLayout*>(
      mmap(nullptr, sizeof(LedgerLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  layout->version = kLedgerVersion + 1;
  layout->magic.store(kLedgerMagic);
  munmap(layout, sizeof(LedgerLayout));
  close(fd);
  EXPECT_FALSE(Ledger::open(name_));
}

}  // namespace
}  // namespace quotient::interposer
