// `quotient validate`'s InfiniBand checks over fake sysfs trees (the formats of
// nodehealth/infiniband_test.cc), and the whole pass (ValidateNode) on a fake node whose one
// port is down.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nodeagent/node_validation.h"
#include "nodeagent/validation.h"
#include "nodehealth/infiniband.h"
#include "nodehealth/test_support.h"
#include "nvml/fake_nvml_fixture.h"

namespace quotient::nodeagent {
namespace {

using nodehealth::testing::ScratchDir;
using nodehealth::testing::WriteFile;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

struct FakePort {
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string rate = "400 Gb/sec (4X NDR)";
};

void MakePort(const fs::path& root, const std::string& device, int port, const FakePort& p) {
  const fs::path dir = root / "class" / "infiniband" / device / "ports" / std::to_string(port);
  WriteFile(dir / "state", p.state + "\n");
  WriteFile(dir / "phys_state", p.phys_state + "\n");
  WriteFile(dir / "rate", p.rate + "\n");
  WriteFile(dir / "link_layer", "InfiniBand\n");
  WriteFile(dir / "counters" / "link_downed", "0\n");
  WriteFile(dir / "counters" / "symbol_error", "0\n");
}

std::vector<Check> Judge(const fs::path& root, const ValidationOptions& options) {
  return CheckInfiniband(nodehealth::ReadInfinibandPorts(root, options.excluded_ib_devices),
                         options);
}

ValidationOptions AtRate(int64_t gbps) {
  ValidationOptions options;
  options.expected_ib_rate_gbps = gbps;
  return options;
}

FakePort Down() {
  FakePort down;
  down.state = "1: DOWN";
  down.phys_state = "3: Disabled";
  return down;
}

TEST(ValidationInfinibandTest, ActivePortsAtTheExpectedRatePassOneCheckPairPerPort) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_1", 1, FakePort{});
  const std::vector<Check> checks = Judge(sys.path(), AtRate(400));
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].name, "ib-port");
  EXPECT_THAT(checks[0].detail, HasSubstr("[ib=mlx5_0 port=1]"));
  EXPECT_EQ(checks[1].name, "ib-rate");
  EXPECT_THAT(checks[2].detail, HasSubstr("[ib=mlx5_1 port=1]"));
  for (const Check& c : checks) EXPECT_EQ(c.verdict, Verdict::kPass) << c.name << c.detail;
}

TEST(ValidationInfinibandTest, APortDownFailsNamingDeviceAndPortAndItsStates) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_1", 1, Down());
  const std::vector<Check> checks = Judge(sys.path(), ValidationOptions{});
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].verdict, Verdict::kPass);
  EXPECT_EQ(checks[2].name, "ib-port");
  EXPECT_EQ(checks[2].verdict, Verdict::kFail);
  EXPECT_THAT(checks[2].detail, HasSubstr("[ib=mlx5_1 port=1]"));
  EXPECT_THAT(checks[2].detail, HasSubstr("DOWN"));
  EXPECT_THAT(checks[2].detail, HasSubstr("Disabled"));
  EXPECT_FALSE(Passed(checks));
}

TEST(ValidationInfinibandTest, ActiveButNotLinkUpFails) {
  ScratchDir sys;
  FakePort polling;
  polling.phys_state = "2: Polling";
  MakePort(sys.path(), "mlx5_0", 1, polling);
  EXPECT_EQ(Judge(sys.path(), ValidationOptions{})[0].verdict, Verdict::kFail);
}

TEST(ValidationInfinibandTest, ASlowPortFailsOnlyWhenARateIsExpected) {
  ScratchDir sys;
  FakePort hdr;
  hdr.rate = "200 Gb/sec (4X HDR)";
  MakePort(sys.path(), "mlx5_0", 1, hdr);
  const std::vector<Check> expected = Judge(sys.path(), AtRate(400));
  EXPECT_EQ(expected[1].name, "ib-rate");
  EXPECT_EQ(expected[1].verdict, Verdict::kFail);
  EXPECT_THAT(expected[1].detail, HasSubstr("200 Gb/sec"));
  EXPECT_THAT(expected[1].detail, HasSubstr("400 Gb/s expected"));
  EXPECT_EQ(Judge(sys.path(), AtRate(200))[1].verdict, Verdict::kPass);
  const std::vector<Check> not_expected = Judge(sys.path(), ValidationOptions{});
  EXPECT_EQ(not_expected[1].verdict, Verdict::kSkip);
  EXPECT_TRUE(Passed(not_expected));
}

TEST(ValidationInfinibandTest, ExcludedDevicesAreNotJudged) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_mgmt", 1, Down());
  ValidationOptions options;
  options.excluded_ib_devices = {"mlx5_mgmt"};
  const std::vector<Check> checks = Judge(sys.path(), options);
  EXPECT_EQ(checks.size(), 2u);
  EXPECT_TRUE(Passed(checks));
  // Also when the readings come from elsewhere with the device in them.
  Result<std::vector<nodehealth::IbPortReading>> all =
      nodehealth::ReadInfinibandPorts(sys.path(), {});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(Passed(CheckInfiniband(all, options)));
  EXPECT_FALSE(Passed(CheckInfiniband(all, ValidationOptions{})));
}

TEST(ValidationInfinibandTest, NoPortsIsSkippedUnlessARateIsExpected) {
  ScratchDir sys;
  const std::vector<Check> none = Judge(sys.path(), ValidationOptions{});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].name, "infiniband");
  EXPECT_EQ(none[0].verdict, Verdict::kSkip);
  const std::vector<Check> expected = Judge(sys.path(), AtRate(400));
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].verdict, Verdict::kFail);
  EXPECT_THAT(expected[0].detail, HasSubstr("400 Gb/s expected"));
}

TEST(ValidationInfinibandTest, UnreadableSysfsFails) {
  const std::vector<Check> checks = CheckInfiniband(
      Result<std::vector<nodehealth::IbPortReading>>::Error("class/infiniband: Permission denied"),
      ValidationOptions{});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::kFail);
  EXPECT_THAT(checks[0].detail, HasSubstr("Permission denied"));
}

// The whole pass as `quotient validate` runs it: healthy fake GPUs, one InfiniBand port down.
class ValidateNodeTest : public nvml::FakeNvmlTest {};

TEST_F(ValidateNodeTest, AHealthyNodeWithAPortDownFailsOnThatPortAlone) {
  Set("FAKE_NVML_UUIDS", "GPU-a,GPU-b");
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_1", 1, Down());
  NodeValidationOptions options;
  options.nvml.library = nvml::kFakeNvml;
  options.sysfs_root = sys.path().string();
  options.checks.expected_gpus = 2;
  options.checks.expected_ib_rate_gbps = 400;
  options.dcgm.mode = DcgmMode::kOff;
  const ValidationReport report = ValidateNode(options);
  EXPECT_FALSE(report.passed());
  std::vector<std::string> failed;
  for (const Check& c : report.checks) {
    if (c.verdict == Verdict::kFail) failed.push_back(c.name + " " + c.detail);
  }
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_THAT(failed[0], HasSubstr("ib-port [ib=mlx5_1 port=1]"));
  EXPECT_EQ(report.checks.front().name, "nvml");
  EXPECT_EQ(report.checks.back().name, "dcgm-diag");
  EXPECT_EQ(report.checks.back().verdict, Verdict::kSkip);
  EXPECT_THAT(report.not_supported, ::testing::Contains("nvmlDeviceGetNvLinkState"));

  // The port comes back: the same node passes.
  MakePort(sys.path(), "mlx5_1", 1, FakePort{});
  EXPECT_TRUE(ValidateNode(options).passed());
}

}  // namespace
}  // namespace quotient::nodeagent
