#include "nvml/nvml.h"

#include <gtest/gtest.h>

#include <string>

#include "nvml/fake_nvml_fixture.h"

namespace quotient::nvml {
namespace {

using NvmlTest = FakeNvmlTest;

constexpr uint64_t kGiB = 1ULL << 30;

TEST_F(NvmlTest, ListsTheFakesDefaultDevices) {
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto devices = (*nvml)->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  ASSERT_EQ(devices->size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    const GpuInfo& gpu = (*devices)[i];
    EXPECT_EQ(gpu.index, i);
    EXPECT_EQ(gpu.uuid, "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(i));
    EXPECT_EQ(gpu.name, "NVIDIA Fake GPU");
    EXPECT_EQ(gpu.memory_total_bytes, 16 * kGiB);
  }
}

TEST_F(NvmlTest, ReadsCountAndMemoryAtCallTime) {
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  Set("FAKECUDA_DEVICE_COUNT", "3");
  Set("FAKECUDA_TOTAL_BYTES", std::to_string(141 * kGiB));
  auto count = (*nvml)->DeviceCount();
  ASSERT_TRUE(count.ok()) << count.message();
  EXPECT_EQ(*count, 3u);
  auto third = (*nvml)->Device(2);
  ASSERT_TRUE(third.ok()) << third.message();
  EXPECT_EQ(third->index, 2u);
  EXPECT_EQ(third->uuid, "GPU-00000000-0000-0000-0000-000000000002");
  EXPECT_EQ(third->memory_total_bytes, 141 * kGiB);
}

TEST_F(NvmlTest, UuidListGivesTheUuidsAndOverridesTheCount) {
  Set("FAKECUDA_DEVICE_COUNT", "5");
  Set("FAKE_NVML_UUIDS",
      "GPU-0b1e3c1a-7f2d-4e55-9a6b-0123456789ab,GPU-ffffffff-1111-2222-3333-444444444444");
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto devices = (*nvml)->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].uuid, "GPU-0b1e3c1a-7f2d-4e55-9a6b-0123456789ab");
  EXPECT_EQ((*devices)[1].uuid, "GPU-ffffffff-1111-2222-3333-444444444444");
  EXPECT_EQ((*devices)[1].index, 1u);
}

TEST_F(NvmlTest, EmptyUuidListMeansNoDevice) {
  Set("FAKE_NVML_UUIDS", "");
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto devices = (*nvml)->Devices();
  ASSERT_TRUE(devices.ok()) << devices.message();
  EXPECT_TRUE(devices->empty());
}

TEST_F(NvmlTest, InitFailureNamesTheCallAndNvmlsText) {
  Set("FAKE_NVML_INIT_ERROR", "9");  // NVML_ERROR_DRIVER_NOT_LOADED
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.message(), "nvmlInit_v2: Driver Not Loaded");
}

TEST_F(NvmlTest, MissingLibraryIsAnErrorWithTheLoadersReason) {
  auto by_path = Nvml::Load("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(by_path.ok());
  EXPECT_EQ(by_path.message(),
            "/nonexistent/libnvidia-ml.so.1 not found: /nonexistent/libnvidia-ml.so.1: cannot open "
            "shared object file: No such file or directory");

  auto by_soname = Nvml::Load("libquotient-no-such-nvml.so.1");
  ASSERT_FALSE(by_soname.ok());
  EXPECT_EQ(by_soname.message().rfind("libquotient-no-such-nvml.so.1 not found: ", 0), 0u)
      << by_soname.message();
}

TEST_F(NvmlTest, LibraryWithoutNvmlNamesEveryMissingEntryPoint) {
  auto nvml = Nvml::Load("libm.so.6");
  ASSERT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.message(),
            "libm.so.6 lacks nvmlInit_v2, nvmlShutdown, nvmlErrorString, nvmlDeviceGetCount_v2, "
            "nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetUUID, nvmlDeviceGetName, "
            "nvmlDeviceGetMemoryInfo");
}

TEST_F(NvmlTest, DeviceErrorsNameTheCallAndTheDevice) {
  // 100 characters do not fit NVML_DEVICE_UUID_V2_BUFFER_SIZE (96): the fake refuses the copy.
  Set("FAKE_NVML_UUIDS", "GPU-short," + std::string(100, 'x'));
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto devices = (*nvml)->Devices();
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.message(), "nvmlDeviceGetUUID(device 1): Insufficient Size");

  auto beyond = (*nvml)->Device(7);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.message(), "nvmlDeviceGetHandleByIndex_v2(device 7): Invalid Argument");
}

TEST_F(NvmlTest, LoadsCoexistAndOutliveEachOther) {
  auto first = Nvml::Load(kFakeNvml);
  auto second = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_TRUE(second.ok()) << second.message();
  first = Result<std::unique_ptr<Nvml>>::Error("dropped");  // ~Nvml: nvmlShutdown, dlclose
  auto count = (*second)->DeviceCount();
  ASSERT_TRUE(count.ok()) << count.message();
  EXPECT_EQ(*count, 2u);
}

}  // namespace
}  // namespace quotient::nvml
