// The NVML half of a poll against the fake libnvidia-ml.so.1: devices come through as the
// evaluation's observations, a missing library and a failed init are told apart.
#include "nodeagent/nvml_collector.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace quotient::nodeagent {
namespace {

class NvmlCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override { Clear(); }
  void TearDown() override { Clear(); }
  static void Clear() {
    for (const char* v : {"FAKE_NVML_UUIDS", "FAKE_NVML_INIT_ERROR", "FAKE_NVML_SCENARIO",
                          "FAKECUDA_DEVICE_COUNT"}) {
      unsetenv(v);
    }
  }
  static NvmlCollectorOptions Fake() {
    NvmlCollectorOptions options;
    options.library = QUOTIENT_FAKE_NVML_PATH;
    options.deadline = std::chrono::milliseconds(2000);
    return options;
  }
};

TEST_F(NvmlCollectorTest, EveryGpuBecomesAnObservation) {
  setenv("FAKE_NVML_UUIDS", "GPU-a,GPU-b", 1);
  NvmlCollector collector(Fake());
  const NvmlPoll poll = collector.Poll();
  EXPECT_EQ(poll.status.state, nodehealth::NvmlState::kOk) << poll.status.detail;
  ASSERT_EQ(poll.gpus.size(), 2u);
  EXPECT_EQ(poll.gpus[0].uuid, "GPU-a");
  EXPECT_EQ(poll.gpus[1].uuid, "GPU-b");
  EXPECT_EQ(poll.gpus[1].index, 1);
  EXPECT_FALSE(poll.gpus[0].bus_id.empty());
  EXPECT_FALSE(poll.gpus[0].lost);
}

TEST_F(NvmlCollectorTest, AMissingLibraryIsNotInstalledAndAFailedInitIsInitFailed) {
  NvmlCollectorOptions missing = Fake();
  missing.library = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_EQ(NvmlCollector(missing).Poll().status.state, nodehealth::NvmlState::kNotInstalled);
  setenv("FAKE_NVML_INIT_ERROR", "9", 1);  // NVML_ERROR_DRIVER_NOT_LOADED
  NvmlCollector collector(Fake());
  const NvmlPoll failed = collector.Poll();
  EXPECT_EQ(failed.status.state, nodehealth::NvmlState::kInitFailed);
  EXPECT_NE(failed.status.detail.find("Driver Not Loaded"), std::string::npos)
      << failed.status.detail;
  // The driver comes back: the next poll loads it again.
  unsetenv("FAKE_NVML_INIT_ERROR");
  EXPECT_EQ(collector.Poll().status.state, nodehealth::NvmlState::kOk);
}

TEST(ToObservationTest, ReadingsKeepTheirValuesAndAbsences) {
  nvml::GpuHealthReading r;
  r.index = 3;
  r.uuid = "GPU-x";
  r.pci_bus_id = "00000000:3B:00.0";
  r.remapped_rows = nvml::RemappedRows{2, 1, true, false};
  r.ecc.volatile_uncorrected = 4;
  r.nvlinks = std::vector<nvml::NvLinkReading>{{0, true, 5, 1, 2, 3}, {1, false, {}, {}, {}, {}}};
  r.pcie.current_width = 8;
  r.pcie.max_width = 16;
  r.recovery_action = nvml::GpuRecoveryAction::kDrainP2p;
  const nodehealth::GpuObservation o = ToObservation(r);
  EXPECT_EQ(o.index, 3);
  EXPECT_EQ(o.bus_id, "00000000:3B:00.0");
  ASSERT_TRUE(o.remapped_rows);
  EXPECT_TRUE(o.remapped_rows->pending);
  EXPECT_EQ(o.remapped_rows->uncorrectable, 1);
  EXPECT_EQ(o.ecc.volatile_uncorrected, 4);
  EXPECT_FALSE(o.ecc.aggregate_corrected);  // not read stays absent, not 0
  ASSERT_EQ(o.nvlinks.size(), 2u);
  EXPECT_EQ(o.nvlinks[0].crc, 5);  // flit + data
  EXPECT_FALSE(o.nvlinks[1].active);
  EXPECT_FALSE(o.nvlinks[1].crc);
  EXPECT_EQ(o.pcie.current_width, 8);
  EXPECT_FALSE(o.pcie.current_gen);
  EXPECT_EQ(o.recovery_action, nodehealth::RecoveryAction::kDrainP2p);
}

}  // namespace
}  // namespace quotient::nodeagent
