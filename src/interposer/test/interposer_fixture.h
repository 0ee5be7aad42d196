// The fixture of the interposer's end-to-end tests: the probe runs under
// LD_PRELOAD=libquotient_gpu_interposer.so against the fake driver (16 GiB "physical" per device)
// with a 1 GiB limit and a ledger of its own, and the test compares what it printed with the
// values the rules give (limit − pod usage).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "child_process.h"

namespace quotient::interposer::testing {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr int kOutOfMemory = 2;

using Lines = std::vector<std::string>;

class InterposerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    ledger_ = "/quotient-gpu-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  }
  void TearDown() override {
    for (int device = 0; device < 2; ++device) {
      shm_unlink((ledger_ + "-dev" + std::to_string(device)).c_str());
    }
  }

  // The probe's environment: preload, fake driver, 1 GiB limit, this test's own ledger.
  std::vector<std::string> environment(std::vector<std::string> extra = {}) const {
    std::vector<std::string> variables{
        std::string("LD_PRELOAD=") + QUOTIENT_INTERPOSER_PATH,
        std::string("LD_LIBRARY_PATH=") + QUOTIENT_FAKE_DRIVER_DIR,
        "QUOTIENT_GPU_LEDGER=" + ledger_,
    };
    bool has_limit = false;
    for (const auto& variable : extra)
      has_limit |= variable.rfind("QUOTIENT_GPU_MEMORY_LIMIT", 0) == 0;
    if (!has_limit) variables.push_back("QUOTIENT_GPU_MEMORY_LIMIT=1g");
    variables.insert(variables.end(), extra.begin(), extra.end());
    return variables;
  }

  Lines probe(const std::vector<std::string>& steps, std::vector<std::string> extra = {}) const {
    return run_child(QUOTIENT_PROBE_PATH, steps, environment(std::move(extra)));
  }

  std::unique_ptr<ChildProcess> holding_probe(const std::vector<std::string>& steps) const {
    auto with_hold = steps;
    with_hold.emplace_back("hold");
    auto child = std::make_unique<ChildProcess>(QUOTIENT_PROBE_PATH, with_hold, environment());
    child->read_until("holding");
    return child;
  }

  std::string ledger_;
};

inline std::string line(const std::string& step, std::uint64_t value) {
  return step + " " + std::to_string(value);
}

inline std::string meminfo(std::uint64_t free, std::uint64_t total) {
  return "meminfo 0 " + std::to_string(free) + " " + std::to_string(total);
}

}  // namespace quotient::interposer::testing
