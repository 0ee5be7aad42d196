// The InfiniBand reader over a fake sysfs tree (section 2.3's formats), built in a scratch folder.
#include "nodehealth/infiniband.h"

#include <gtest/gtest.h>

#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::ScratchDir;
using testing::WriteFile;
namespace fs = std::filesystem;

struct FakePort {
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string rate = "400 Gb/sec (4X NDR)";
  std::string link_layer = "InfiniBand";
  std::string link_downed = "0";
  std::string symbol_error = "0";
};

void MakePort(const fs::path& root, const std::string& device, int port, const FakePort& p) {
  const fs::path dir = root / "class" / "infiniband" / device / "ports" / std::to_string(port);
  WriteFile(dir / "state", p.state + "\n");
  WriteFile(dir / "phys_state", p.phys_state + "\n");
  WriteFile(dir / "rate", p.rate + "\n");
  WriteFile(dir / "link_layer", p.link_layer + "\n");
  WriteFile(dir / "counters" / "link_downed", p.link_downed + "\n");
  WriteFile(dir / "counters" / "symbol_error", p.symbol_error + "\n");
}

TEST(NodeHealthInfinibandTest, ReadsEveryPortSortedByDeviceAndPort) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_1", 1, FakePort{});
  MakePort(sys.path(), "mlx5_0", 2, FakePort{});
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  Result<std::vector<IbPortReading>> ports = ReadInfinibandPorts(sys.path(), {});
  ASSERT_TRUE(ports.ok()) << ports.message();
  ASSERT_EQ(ports->size(), 3u);
  EXPECT_EQ((*ports)[0].device, "mlx5_0");
  EXPECT_EQ((*ports)[0].port, 1);
  EXPECT_EQ((*ports)[1].port, 2);
  EXPECT_EQ((*ports)[2].device, "mlx5_1");
  const IbPortReading& p = (*ports)[0];
  EXPECT_EQ(p.state, 4);
  EXPECT_EQ(p.state_name, "ACTIVE");
  EXPECT_EQ(p.phys_state, 5);
  EXPECT_EQ(p.phys_state_name, "LinkUp");
  EXPECT_EQ(p.rate_mbps, 400000);
  EXPECT_EQ(p.rate_text, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(p.link_downed, 0);
  EXPECT_EQ(p.symbol_error, 0);
}

TEST(NodeHealthInfinibandTest, ADownDisabledSlowPortIsReadAsItIs) {
  ScratchDir sys;
  FakePort bad;
  bad.state = "1: DOWN";
  bad.phys_state = "3: Disabled";
  bad.rate = "200 Gb/sec (4X HDR)";
  bad.link_downed = "7";
  MakePort(sys.path(), "mlx5_0", 1, bad);
  auto ports = ReadInfinibandPorts(sys.path(), {});
  ASSERT_EQ(ports->size(), 1u);
  EXPECT_EQ((*ports)[0].state, 1);
  EXPECT_EQ((*ports)[0].state_name, "DOWN");
  EXPECT_EQ((*ports)[0].phys_state, 3);
  EXPECT_EQ((*ports)[0].phys_state_name, "Disabled");
  EXPECT_EQ((*ports)[0].rate_mbps, 200000);
  EXPECT_EQ((*ports)[0].link_downed, 7);
}

TEST(NodeHealthInfinibandTest, EthernetPortsAndExcludedDevicesAreLeftOut) {
  ScratchDir sys;
  FakePort roce;
  roce.link_layer = "Ethernet";
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_1", 1, roce);
  MakePort(sys.path(), "mlx5_mgmt", 1, FakePort{});
  auto ports = ReadInfinibandPorts(sys.path(), {"mlx5_mgmt"});
  ASSERT_EQ(ports->size(), 1u);
  EXPECT_EQ((*ports)[0].device, "mlx5_0");
}

TEST(NodeHealthInfinibandTest, ANodeWithoutInfinibandHasNoPorts) {
  ScratchDir sys;
  auto ports = ReadInfinibandPorts(sys.path(), {});
  ASSERT_TRUE(ports.ok());
  EXPECT_TRUE(ports->empty());
}

TEST(NodeHealthInfinibandTest, AVanishedDeviceIsSimplyAbsent) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  MakePort(sys.path(), "mlx5_1", 1, FakePort{});
  fs::remove_all(sys.path() / "class" / "infiniband" / "mlx5_1");
  auto ports = ReadInfinibandPorts(sys.path(), {});
  ASSERT_EQ(ports->size(), 1u);
  // A port whose attributes went away mid-listing is skipped, not half-read.
  fs::remove(sys.path() / "class" / "infiniband" / "mlx5_0" / "ports" / "1" / "state");
  EXPECT_TRUE(ReadInfinibandPorts(sys.path(), {})->empty());
}

TEST(NodeHealthInfinibandTest, CountersThatCannotBeReadAreAbsentNotZero) {
  ScratchDir sys;
  MakePort(sys.path(), "mlx5_0", 1, FakePort{});
  fs::remove(sys.path() / "class/infiniband/mlx5_0/ports/1/counters/symbol_error");
  auto ports = ReadInfinibandPorts(sys.path(), {});
  EXPECT_FALSE((*ports)[0].symbol_error.has_value());
  EXPECT_EQ((*ports)[0].link_downed, 0);
}

TEST(NodeHealthInfinibandTest, RatesParseToMegabitsPerSecond) {
  EXPECT_EQ(ParseIbRateMbps("200 Gb/sec (4X HDR)"), 200000);
  EXPECT_EQ(ParseIbRateMbps("800 Gb/sec (4X XDR)"), 800000);
  EXPECT_EQ(ParseIbRateMbps("2.5 Gb/sec (1X SDR)"), 2500);
  EXPECT_EQ(ParseIbRateMbps("56 Gb/sec (4X FDR)"), 56000);
  EXPECT_FALSE(ParseIbRateMbps("fast"));
  EXPECT_FALSE(ParseIbRateMbps("400 Mb/sec"));
}

TEST(NodeHealthInfinibandTest, NumberedStatesParse) {
  const auto active = ParseNumberedState("4: ACTIVE");
  ASSERT_TRUE(active);
  EXPECT_EQ(active->number, 4);
  EXPECT_EQ(active->name, "ACTIVE");
  const auto phy = ParseNumberedState("7: Phy Test");
  EXPECT_EQ(phy->name, "Phy Test");
  EXPECT_FALSE(ParseNumberedState("ACTIVE"));
}

}  // namespace
}  // namespace quotient::nodehealth
