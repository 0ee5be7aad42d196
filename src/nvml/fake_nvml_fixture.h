// Test support: a fixture that starts every test from the fake libnvidia-ml.so.1's defaults
// (src/interposer/test/fake_nvml.cc). The fake reads its environment on every call, so a test sets
// the variables it needs before Load or between calls.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace quotient::nvml {

inline constexpr const char* kFakeNvml = QUOTIENT_FAKE_NVML_PATH;

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearFakeEnvironment(); }
  void TearDown() override { ClearFakeEnvironment(); }

  static void Set(const char* name, const std::string& value) {
    ASSERT_EQ(setenv(name, value.c_str(), 1), 0) << name;
  }

 private:
  static void ClearFakeEnvironment() {
    for (const char* name : {"FAKE_NVML_UUIDS", "FAKE_NVML_INIT_ERROR", "FAKECUDA_DEVICE_COUNT",
                             "FAKECUDA_TOTAL_BYTES"}) {
      unsetenv(name);
    }
  }
};

}  // namespace quotient::nvml
