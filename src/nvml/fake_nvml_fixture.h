// Test support: a fixture that starts every test from the fake libnvidia-ml.so.1's defaults
// (src/interposer/test/fake_nvml*.cc). The fake reads its environment, and the scenario file it
// names, on every call, so a test sets the variables it needs (or rewrites the scenario) before
// Load or between calls.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace quotient::nvml {

inline constexpr const char* kFakeNvml = QUOTIENT_FAKE_NVML_PATH;
// The same fake without the health and event entry points: a driver that lacks them.
inline constexpr const char* kFakeNvmlBasic = QUOTIENT_FAKE_NVML_BASIC_PATH;

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearFakeEnvironment(); }
  void TearDown() override {
    ClearFakeEnvironment();
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }

  static void Set(const char* name, const std::string& value) {
    ASSERT_EQ(setenv(name, value.c_str(), 1), 0) << name;
  }

  // Points the fake at a scenario file holding `json` (format: src/nvml/README.md). Each call
  // replaces the file by a rename, as a test injecting a fault would, so the fake sees a new
  // inode and re-reads it even within the same second and size. Only the first call sets
  // FAKE_NVML_SCENARIO, so later ones may come from another thread while NVML calls run.
  void WriteScenario(const std::string& json) {
    const bool first = directory_.empty();
    if (first) {
      static std::atomic<int> counter{0};
      directory_ =
          std::filesystem::temp_directory_path() /
          ("quotient-fake-nvml-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
      std::filesystem::create_directories(directory_);
    }
    const std::filesystem::path file = directory_ / "scenario.json";
    const std::filesystem::path next = directory_ / "scenario.json.next";
    {
      std::ofstream out(next);
      out << json;
      ASSERT_TRUE(out.good()) << next;
    }
    std::filesystem::rename(next, file);
    if (first) Set("FAKE_NVML_SCENARIO", file.string());
  }

 private:
  static void ClearFakeEnvironment() {
    for (const char* name : {"FAKE_NVML_UUIDS", "FAKE_NVML_INIT_ERROR", "FAKECUDA_DEVICE_COUNT",
                             "FAKECUDA_TOTAL_BYTES", "FAKE_NVML_SCENARIO"}) {
      unsetenv(name);
    }
  }

  std::filesystem::path directory_;
};

}  // namespace quotient::nvml
