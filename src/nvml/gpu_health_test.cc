#include "nvml/gpu_health.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nvml/fake_nvml_fixture.h"

namespace quotient::nvml {
namespace {

using Strings = std::vector<std::string>;

class GpuHealthTest : public FakeNvmlTest {
 protected:
  std::unique_ptr<Nvml> LoadFake(const char* library = kFakeNvml) {
    auto nvml = Nvml::Load(library);
    EXPECT_TRUE(nvml.ok()) << nvml.message();
    return nvml.ok() ? std::move(nvml).value() : nullptr;
  }
};

// Every call a pass makes after the UUID, in order, as not_supported names them when none can
// be answered.
const Strings kEveryHealthCall = {
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetRemappedRows",
    "nvmlDeviceGetTotalEccErrors(volatile corrected)",
    "nvmlDeviceGetTotalEccErrors(volatile uncorrected)",
    "nvmlDeviceGetTotalEccErrors(aggregate corrected)",
    "nvmlDeviceGetTotalEccErrors(aggregate uncorrected)",
    "nvmlDeviceGetRetiredPages_v2(single bit)",
    "nvmlDeviceGetRetiredPages_v2(double bit)",
    "nvmlDeviceGetRetiredPagesPendingStatus",
    "nvmlDeviceGetNvLinkState",
    "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetMaxPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth",
    "nvmlDeviceGetMaxPcieLinkWidth",
    "nvmlDeviceGetPcieReplayCounter",
    "nvmlDeviceGetFieldValues(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)",
};

void ExpectNothingRead(const GpuHealthReading& reading) {
  EXPECT_FALSE(reading.pci_bus_id);
  EXPECT_FALSE(reading.remapped_rows);
  EXPECT_FALSE(reading.ecc.volatile_corrected);
  EXPECT_FALSE(reading.ecc.volatile_uncorrected);
  EXPECT_FALSE(reading.ecc.aggregate_corrected);
  EXPECT_FALSE(reading.ecc.aggregate_uncorrected);
  EXPECT_FALSE(reading.retired_pages.multiple_single_bit);
  EXPECT_FALSE(reading.retired_pages.double_bit);
  EXPECT_FALSE(reading.retired_pages.pending);
  EXPECT_FALSE(reading.nvlinks);
  EXPECT_FALSE(reading.pcie.current_generation);
  EXPECT_FALSE(reading.pcie.max_generation);
  EXPECT_FALSE(reading.pcie.current_width);
  EXPECT_FALSE(reading.pcie.max_width);
  EXPECT_FALSE(reading.pcie.replay_count);
  EXPECT_FALSE(reading.recovery_action);
}

// A device whose scenario names no fault reads as the fake's defaults (src/nvml/README.md):
// bus index + 1, nothing remapped, retired or counted, no NVLink, PCIe gen 4 x16 at its max,
// recovery action NONE.
void ExpectHealthyDefaults(const GpuHealthReading& reading, unsigned index) {
  EXPECT_FALSE(reading.lost);
  EXPECT_TRUE(reading.errors.empty()) << reading.errors.front().message;
  EXPECT_EQ(reading.pci_bus_id, "00000000:0" + std::to_string(index + 1) + ":00.0");
  ASSERT_TRUE(reading.remapped_rows);
  EXPECT_EQ(reading.remapped_rows->correctable, 0u);
  EXPECT_EQ(reading.remapped_rows->uncorrectable, 0u);
  EXPECT_FALSE(reading.remapped_rows->pending);
  EXPECT_FALSE(reading.remapped_rows->failure_occurred);
  EXPECT_EQ(reading.ecc.volatile_corrected, 0u);
  EXPECT_EQ(reading.ecc.aggregate_uncorrected, 0u);
  EXPECT_EQ(reading.retired_pages.multiple_single_bit, 0u);
  EXPECT_EQ(reading.retired_pages.double_bit, 0u);
  EXPECT_EQ(reading.retired_pages.pending, false);
  EXPECT_FALSE(reading.nvlinks);
  EXPECT_EQ(reading.not_supported, Strings{"nvmlDeviceGetNvLinkState"});
  EXPECT_EQ(reading.pcie.current_generation, 4u);
  EXPECT_EQ(reading.pcie.max_generation, 4u);
  EXPECT_EQ(reading.pcie.current_width, 16u);
  EXPECT_EQ(reading.pcie.max_width, 16u);
  EXPECT_EQ(reading.pcie.replay_count, 0u);
  EXPECT_EQ(reading.recovery_action, GpuRecoveryAction::kNone);
}

TEST_F(GpuHealthTest, ReadsEveryFieldTheScenarioSets) {
  WriteScenario(R"({"devices": [
    {"uuid": "GPU-aaaaaaaa-0000-0000-0000-000000000001", "bus_id": "00000000:18:00.0",
     "remapped_rows": {"corr": 3, "unc": 1, "pending": true, "failure": false},
     "ecc": {"volatile_corrected": 7, "volatile_uncorrected": 2,
             "aggregate_corrected": 41, "aggregate_uncorrected": 5},
     "retired_pages": {"sbe": 2, "dbe": 1, "pending": true},
     "nvlink": [{"active": true, "replay": 11, "recovery": 1, "crc_flit": 21, "crc_data": 4},
                {"active": false, "recovery": 3, "crc": 9},
                {}],
     "pcie": {"cur_gen": 3, "max_gen": 5, "cur_width": 8, "max_width": 16, "replay": 17},
     "recovery_action": 2},
    {"uuid": "GPU-bbbbbbbb-0000-0000-0000-000000000002", "remapped_rows": {"failure": true},
     "recovery_action": 4}
  ]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);

  const GpuHealthReading first = ReadGpuHealth(*nvml, 0);
  EXPECT_EQ(first.index, 0u);
  EXPECT_EQ(first.uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000001");
  EXPECT_FALSE(first.lost);
  EXPECT_TRUE(first.errors.empty());
  EXPECT_TRUE(first.not_supported.empty());
  EXPECT_EQ(first.pci_bus_id, "00000000:18:00.0");
  ASSERT_TRUE(first.remapped_rows);
  EXPECT_EQ(first.remapped_rows->correctable, 3u);
  EXPECT_EQ(first.remapped_rows->uncorrectable, 1u);
  EXPECT_TRUE(first.remapped_rows->pending);
  EXPECT_FALSE(first.remapped_rows->failure_occurred);
  EXPECT_EQ(first.ecc.volatile_corrected, 7u);
  EXPECT_EQ(first.ecc.volatile_uncorrected, 2u);
  EXPECT_EQ(first.ecc.aggregate_corrected, 41u);
  EXPECT_EQ(first.ecc.aggregate_uncorrected, 5u);
  // Two single-bit pages: NVML answers the empty-buffer query with INSUFFICIENT_SIZE and the
  // count, which is the answer.
  EXPECT_EQ(first.retired_pages.multiple_single_bit, 2u);
  EXPECT_EQ(first.retired_pages.double_bit, 1u);
  EXPECT_EQ(first.retired_pages.pending, true);
  // Three links; link 3 answers INVALID_ARGUMENT, which ends the walk without an error.
  ASSERT_TRUE(first.nvlinks);
  ASSERT_EQ(first.nvlinks->size(), 3u);
  const NvLinkReading& link0 = (*first.nvlinks)[0];
  EXPECT_EQ(link0.link, 0u);
  EXPECT_TRUE(link0.active);
  EXPECT_EQ(link0.replay_errors, 11u);
  EXPECT_EQ(link0.recovery_errors, 1u);
  EXPECT_EQ(link0.crc_flit_errors, 21u);
  EXPECT_EQ(link0.crc_data_errors, 4u);
  const NvLinkReading& link1 = (*first.nvlinks)[1];
  EXPECT_EQ(link1.link, 1u);
  EXPECT_FALSE(link1.active);
  EXPECT_EQ(link1.replay_errors, 0u);
  EXPECT_EQ(link1.recovery_errors, 3u);
  EXPECT_EQ(link1.crc_flit_errors, 9u);  // "crc" is the flit counter
  EXPECT_EQ(link1.crc_data_errors, 0u);
  EXPECT_EQ((*first.nvlinks)[2].link, 2u);
  EXPECT_TRUE((*first.nvlinks)[2].active);  // a link is active unless the scenario says not
  EXPECT_EQ(first.pcie.current_generation, 3u);
  EXPECT_EQ(first.pcie.max_generation, 5u);
  EXPECT_EQ(first.pcie.current_width, 8u);
  EXPECT_EQ(first.pcie.max_width, 16u);
  EXPECT_EQ(first.pcie.replay_count, 17u);
  EXPECT_EQ(first.recovery_action, GpuRecoveryAction::kNodeReboot);

  const GpuHealthReading second = ReadGpuHealth(*nvml, 1);
  EXPECT_EQ(second.index, 1u);
  EXPECT_EQ(second.uuid, "GPU-bbbbbbbb-0000-0000-0000-000000000002");
  ASSERT_TRUE(second.remapped_rows);
  EXPECT_TRUE(second.remapped_rows->failure_occurred);
  EXPECT_EQ(second.recovery_action, GpuRecoveryAction::kDrainAndReset);
  EXPECT_EQ(second.pci_bus_id, "00000000:02:00.0");
  EXPECT_FALSE(second.nvlinks);
}

TEST_F(GpuHealthTest, DevicesOfTheEnvironmentReadHealthy) {
  Set("FAKECUDA_DEVICE_COUNT", "2");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  for (unsigned index = 0; index < 2; ++index) {
    const GpuHealthReading reading = ReadGpuHealth(*nvml, index);
    EXPECT_EQ(reading.uuid, "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index));
    ExpectHealthyDefaults(reading, index);
  }
}

TEST_F(GpuHealthTest, NotSupportedCallsLeaveTheFieldEmptyWithoutAnError) {
  WriteScenario(R"({"devices": [{
    "nvlink": [{"active": true}],
    "unsupported": ["nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetRemappedRows",
      "nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetRetiredPages_v2",
      "nvmlDeviceGetRetiredPagesPendingStatus", "nvmlDeviceGetNvLinkState",
      "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkGeneration",
      "nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetMaxPcieLinkWidth",
      "nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetFieldValues"]}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 0);
  EXPECT_EQ(reading.uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(reading.lost);
  EXPECT_TRUE(reading.errors.empty());
  ExpectNothingRead(reading);
  EXPECT_EQ(reading.not_supported, kEveryHealthCall);
}

TEST_F(GpuHealthTest, EntryPointsMissingFromTheLibraryAreNotSupported) {
  // The basic fake exports only what Load requires: a driver without the health calls.
  auto nvml = LoadFake(kFakeNvmlBasic);
  ASSERT_NE(nvml, nullptr);
  const auto devices = nvml->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  ASSERT_EQ(devices->size(), 2u);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 1);
  EXPECT_EQ(reading.uuid, "GPU-00000000-0000-0000-0000-000000000001");
  EXPECT_TRUE(reading.errors.empty());
  ExpectNothingRead(reading);
  EXPECT_EQ(reading.not_supported, kEveryHealthCall);
}

TEST_F(GpuHealthTest, FunctionNotFoundIsNotSupportedAndListedOnce) {
  WriteScenario(R"({"devices": [{
    "nvlink": [{"active": true, "replay": 5}, {"active": false}],
    "errors": {"nvmlDeviceGetRemappedRows": 13, "nvmlDeviceGetNvLinkErrorCounter": 13}}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 0);
  EXPECT_TRUE(reading.errors.empty());
  EXPECT_FALSE(reading.remapped_rows);
  ASSERT_TRUE(reading.nvlinks);
  ASSERT_EQ(reading.nvlinks->size(), 2u);
  EXPECT_TRUE((*reading.nvlinks)[0].active);
  EXPECT_FALSE((*reading.nvlinks)[1].active);
  EXPECT_FALSE((*reading.nvlinks)[0].replay_errors);
  EXPECT_FALSE((*reading.nvlinks)[1].crc_data_errors);
  // Both links lack the counters; each counter is named once, without a link.
  EXPECT_EQ(reading.not_supported,
            (Strings{"nvmlDeviceGetRemappedRows", "nvmlDeviceGetNvLinkErrorCounter(replay)",
                     "nvmlDeviceGetNvLinkErrorCounter(recovery)",
                     "nvmlDeviceGetNvLinkErrorCounter(crc flit)",
                     "nvmlDeviceGetNvLinkErrorCounter(crc data)"}));
  EXPECT_TRUE(reading.pci_bus_id);  // the rest is read
  EXPECT_EQ(reading.recovery_action, GpuRecoveryAction::kNone);
}

TEST_F(GpuHealthTest, RecoveryActionFieldUnknownToTheDriverIsNotSupported) {
  // nvmlDeviceGetFieldValues succeeds; the field's own nvmlReturn says NOT_SUPPORTED.
  WriteScenario(R"({"devices": [{"unsupported": ["NVML_FI_DEV_GET_GPU_RECOVERY_ACTION"]}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 0);
  EXPECT_FALSE(reading.recovery_action);
  EXPECT_TRUE(reading.errors.empty());
  EXPECT_EQ(reading.not_supported,
            (Strings{"nvmlDeviceGetNvLinkState",
                     "nvmlDeviceGetFieldValues(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)"}));
}

TEST_F(GpuHealthTest, OtherFailuresAreErrorsNamingCallDeviceAndNvmlsText) {
  WriteScenario(R"({"devices": [{}, {
    "nvlink": [{}, {}],
    "errors": {"nvmlDeviceGetPcieReplayCounter": 999, "nvmlDeviceGetNvLinkState": 999,
               "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION": 999}}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 1);
  EXPECT_FALSE(reading.lost);
  ASSERT_EQ(reading.errors.size(), 3u);
  // An error on a link ends the walk: link 1 is not asked.
  EXPECT_EQ(reading.errors[0].call, "nvmlDeviceGetNvLinkState(link 0)");
  EXPECT_EQ(reading.errors[0].code, 999);
  EXPECT_EQ(reading.errors[0].message, "nvmlDeviceGetNvLinkState(device 1, link 0): Unknown Error");
  EXPECT_EQ(reading.errors[1].call, "nvmlDeviceGetPcieReplayCounter");
  EXPECT_EQ(reading.errors[1].message, "nvmlDeviceGetPcieReplayCounter(device 1): Unknown Error");
  EXPECT_EQ(reading.errors[2].call,
            "nvmlDeviceGetFieldValues(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)");
  EXPECT_EQ(
      reading.errors[2].message,
      "nvmlDeviceGetFieldValues(device 1, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION): Unknown Error");
  EXPECT_FALSE(reading.nvlinks);  // no link could be read
  EXPECT_FALSE(reading.pcie.replay_count);
  EXPECT_FALSE(reading.recovery_action);
  EXPECT_EQ(reading.pcie.max_width, 16u);  // the rest is read
  EXPECT_TRUE(reading.not_supported.empty());
}

TEST_F(GpuHealthTest, LostGpuIsFlaggedAndEndsThePass) {
  WriteScenario(R"({"devices": [{"lost": true}, {}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading lost = ReadGpuHealth(*nvml, 0);
  EXPECT_TRUE(lost.lost);
  EXPECT_EQ(lost.uuid, "");
  ASSERT_EQ(lost.errors.size(), 1u);
  EXPECT_EQ(lost.errors[0].call, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_EQ(lost.errors[0].code, 15);
  EXPECT_EQ(lost.errors[0].message, "nvmlDeviceGetHandleByIndex_v2(device 0): GPU is lost");
  ExpectNothingRead(lost);
  EXPECT_TRUE(lost.not_supported.empty());

  // The other GPU is unaffected.
  ExpectHealthyDefaults(ReadGpuHealth(*nvml, 1), 1);
}

TEST_F(GpuHealthTest, GpuLostMidwaySkipsTheCallsAfterIt) {
  WriteScenario(R"({"devices": [{"errors": {"nvmlDeviceGetTotalEccErrors": 15}}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading reading = ReadGpuHealth(*nvml, 0);
  EXPECT_TRUE(reading.lost);
  EXPECT_EQ(reading.uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_TRUE(reading.pci_bus_id);       // read before
  EXPECT_TRUE(reading.remapped_rows);    // read before
  ASSERT_EQ(reading.errors.size(), 1u);  // the first ECC call; none after it was made
  EXPECT_EQ(reading.errors[0].call, "nvmlDeviceGetTotalEccErrors(volatile corrected)");
  EXPECT_FALSE(reading.ecc.aggregate_uncorrected);
  EXPECT_FALSE(reading.retired_pages.pending);
  EXPECT_FALSE(reading.pcie.max_width);
  EXPECT_FALSE(reading.recovery_action);
  EXPECT_TRUE(reading.not_supported.empty());  // NVLink was never asked
}

TEST_F(GpuHealthTest, RewritingTheScenarioInjectsAFault) {
  WriteScenario(R"({"devices": [{}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const GpuHealthReading before = ReadGpuHealth(*nvml, 0);
  ASSERT_TRUE(before.remapped_rows);
  EXPECT_FALSE(before.remapped_rows->pending);
  EXPECT_EQ(before.recovery_action, GpuRecoveryAction::kNone);

  // Same Nvml, same process: the fake sees the new file on the next call.
  WriteScenario(R"({"devices": [{"remapped_rows": {"unc": 1, "pending": true},
                                 "recovery_action": 1}]})");
  const GpuHealthReading after = ReadGpuHealth(*nvml, 0);
  ASSERT_TRUE(after.remapped_rows);
  EXPECT_TRUE(after.remapped_rows->pending);
  EXPECT_EQ(after.remapped_rows->uncorrectable, 1u);
  EXPECT_EQ(after.recovery_action, GpuRecoveryAction::kGpuReset);
}

TEST_F(GpuHealthTest, ScenarioDevicesServeTheBasicCallsToo) {
  WriteScenario(R"({"devices": [{"uuid": "GPU-cccccccc-0000-0000-0000-000000000003",
                                 "name": "NVIDIA H100 80GB HBM3", "memory_total": 85899345920}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  const auto devices = nvml->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].uuid, "GPU-cccccccc-0000-0000-0000-000000000003");
  EXPECT_EQ((*devices)[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ((*devices)[0].memory_total_bytes, 80ULL << 30);
}

TEST_F(GpuHealthTest, AScenarioWithAnUnknownKeyIsRefusedAndTheLastOneKept) {
  WriteScenario(R"({"devices": [{"uuid": "GPU-dddddddd-0000-0000-0000-000000000004"}]})");
  auto nvml = LoadFake();
  ASSERT_NE(nvml, nullptr);
  ASSERT_EQ(ReadGpuHealth(*nvml, 0).uuid, "GPU-dddddddd-0000-0000-0000-000000000004");
  // A misspelt fault must not read as a healthy GPU: the fake keeps the previous scenario.
  WriteScenario(R"({"devices": [{"remaped_rows": {"pending": true}}, {}]})");
  const auto devices = nvml->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].uuid, "GPU-dddddddd-0000-0000-0000-000000000004");
}

}  // namespace
}  // namespace quotient::nvml
