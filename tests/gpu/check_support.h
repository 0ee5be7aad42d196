// What every check of the GPU check program shares: its verdict lines and the driver set-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_driver.h"

namespace gpu_check {

constexpr std::uint64_t kMiB = 1ULL << 20;

// One line per verdict, "PASS|FAIL|SKIP <check> <detail>", parsed by check.sh.
void pass(const std::string& check, const std::string& detail);
void fail(const std::string& check, const std::string& detail);
void skip(const std::string& check, const std::string& detail);

// cuInit, device 0, its primary context made current; false (and a FAIL for `check`) if any
// step fails.
bool open_device(const std::string& check);

// "library:symbol" of a function pointer (dladdr), to tell the interposer's hooks from the
// driver's entries.
std::string owner(void* function);

// The first step whose answer differs from the expected one, or "" if all matched: each
// expectation is recorded with `expect`, the verdict reads `mismatch()`.
class Steps;
void conclude(const std::string& check, const Steps& steps, const std::string& detail);
std::string mib(std::uint64_t bytes);

// Device memory freed when the check ends.
struct Held {
  std::vector<CUdeviceptr> pointers;
  Held() = default;
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held();
  CUresult allocate(std::uint64_t bytes);
  CUresult free_last();
};

class Steps {
 public:
  void expect(const std::string& step, int answer, int expected);
  [[nodiscard]] const std::string& mismatch() const { return mismatch_; }

 private:
  std::string mismatch_;
};

}  // namespace gpu_check
