#include "nvml/single_gpu.h"

#include <gtest/gtest.h>

#include "nvml/fake_nvml_fixture.h"

namespace quotient::nvml {
namespace {

using NvmlSingleGpuTest = FakeNvmlTest;

// The UUID SingleVisibleGpuUuid gives for the fake as the environment now stands.
Result<std::string> SingleUuid() {
  auto nvml = Nvml::Load(kFakeNvml);
  if (!nvml.ok()) return nvml.status();
  return SingleVisibleGpuUuid(**nvml);
}

TEST_F(NvmlSingleGpuTest, OneVisibleDeviceGivesItsUuid) {
  Set("FAKE_NVML_UUIDS", "GPU-0b1e3c1a-7f2d-4e55-9a6b-0123456789ab");
  auto uuid = SingleUuid();
  ASSERT_TRUE(uuid.ok()) << uuid.message();
  EXPECT_EQ(*uuid, "GPU-0b1e3c1a-7f2d-4e55-9a6b-0123456789ab");

  unsetenv("FAKE_NVML_UUIDS");
  Set("FAKECUDA_DEVICE_COUNT", "1");
  uuid = SingleUuid();
  ASSERT_TRUE(uuid.ok()) << uuid.message();
  EXPECT_EQ(*uuid, "GPU-00000000-0000-0000-0000-000000000000");
}

TEST_F(NvmlSingleGpuTest, NoVisibleDeviceSaysZero) {
  Set("FAKE_NVML_UUIDS", "");
  auto uuid = SingleUuid();
  ASSERT_FALSE(uuid.ok());
  EXPECT_EQ(uuid.message(), "expected exactly one visible GPU, NVML sees 0");
}

TEST_F(NvmlSingleGpuTest, SeveralVisibleDevicesSaysHowManyAndWhich) {
  Set("FAKECUDA_DEVICE_COUNT", "2");
  auto uuid = SingleUuid();
  ASSERT_FALSE(uuid.ok());
  EXPECT_EQ(
      uuid.message(),
      "expected exactly one visible GPU, NVML sees 2: GPU-00000000-0000-0000-0000-000000000000, "
      "GPU-00000000-0000-0000-0000-000000000001");
}

TEST_F(NvmlSingleGpuTest, NvmlErrorsPassThrough) {
  Set("FAKE_NVML_UUIDS", std::string(100, 'x'));
  auto nvml = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto uuid = SingleVisibleGpuUuid(**nvml);
  ASSERT_FALSE(uuid.ok());
  EXPECT_EQ(uuid.message(), "nvmlDeviceGetUUID(device 0): Insufficient Size");
}

}  // namespace
}  // namespace quotient::nvml
