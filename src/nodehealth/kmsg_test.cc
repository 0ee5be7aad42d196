// Kernel log lines as the NVIDIA driver, the NVSwitch driver and mlx5 write them (formats from
// section 2.1 of ../shared/docs/gpu-isolation-and-health.md and NVSentinel's parser tests).
#include <gtest/gtest.h>

#include "nodehealth/kmsg.h"

namespace quotient::nodehealth {
namespace {

std::vector<KernelEvent> Parse(std::string_view message) {
  KernelLogParser parser;
  return parser.Feed(message);
}

TEST(NodeHealthKmsgTest, AKmsgRecordGivesItsSequenceAndDecodedMessage) {
  const std::optional<LogRecord> r =
      ParseLogLine("4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00): 79, GPU\\x5cbus\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->seq, 1234u);
  EXPECT_EQ(r->ts_usec, 5678901u);
  EXPECT_EQ(r->message, "NVRM: Xid (PCI:0000:3b:00): 79, GPU\\bus");  // \x5c is '\'
}

TEST(NodeHealthKmsgTest, KmsgRecordsMayCarryMoreFieldsBeforeTheSemicolon) {
  const std::optional<LogRecord> r = ParseLogLine("6,339,5140900,-,caller=T1;mlx5_core up");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->seq, 339u);
  EXPECT_EQ(r->message, "mlx5_core up");
}

TEST(NodeHealthKmsgTest, DictionaryLinesAreSkippedAndPlainLinesKeptWhole) {
  EXPECT_FALSE(ParseLogLine(" SUBSYSTEM=pci"));
  EXPECT_FALSE(ParseLogLine(" DEVICE=+pci:0000:3b:00.0"));
  const std::optional<LogRecord> plain =
      ParseLogLine("[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 13, pid=1; x");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->seq);
  EXPECT_EQ(plain->message, "[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 13, pid=1; x");
}

TEST(NodeHealthKmsgTest, StandardXidLineGivesCodeAddressAndText) {
  const auto events = Parse(
      "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
      "bus.");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kXid);
  EXPECT_EQ(events[0].bdf, "0000:3b:00");
  EXPECT_EQ(events[0].code, 79);
  EXPECT_EQ(events[0].text, "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
  EXPECT_FALSE(events[0].fatal);  // the line does not say; the catalogue decides
}

TEST(NodeHealthKmsgTest, MinimalAndFunctionQualifiedXidLinesParse) {
  auto minimal = Parse("[  10.1] NVRM: Xid (PCI:0000:3f:00): 46");
  ASSERT_EQ(minimal.size(), 1u);
  EXPECT_EQ(minimal[0].code, 46);
  EXPECT_EQ(minimal[0].text, "");
  auto with_function = Parse(
      "NVRM: Xid (PCI:0000:00:08.0): 145, RLW_REMAP Nonfatal XC1 i0 Link 10 "
      "(0x00000082 0x00000040 0x00000000 0x00000000 0x00000000 0x00000000)");
  ASSERT_EQ(with_function.size(), 1u);
  EXPECT_EQ(with_function[0].bdf, "0000:00:08");
  EXPECT_EQ(with_function[0].fatal, false);
}

TEST(NodeHealthKmsgTest, NvlinkFiveLinesStateTheirFatality) {
  auto fatal = Parse(
      "NVRM: Xid (PCI:0018:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 09 (0x025525c6 "
      "0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)");
  ASSERT_EQ(fatal.size(), 1u);
  EXPECT_EQ(fatal[0].code, 149);
  EXPECT_EQ(fatal[0].fatal, true);
  // XID 74's text says "fatal" in lower case as prose: not a stated fatality.
  auto prose = Parse(
      "NVRM: Xid (PCI:0003:00:00): 74, pid='<unknown>', name=<unknown>, NVLink: "
      "fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)");
  ASSERT_EQ(prose.size(), 1u);
  EXPECT_FALSE(prose[0].fatal);
}

TEST(NodeHealthKmsgTest, Xid154StatesTheNewRecoveryAction) {
  auto reset = Parse(
      "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 "
      "(None) to 0x1 (GPU Reset Required)");
  ASSERT_EQ(reset.size(), 1u);
  EXPECT_EQ(reset[0].recovery_action, RecoveryAction::kGpuReset);
  auto none = Parse(
      "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x1 "
      "(GPU Reset Required) to 0x0 (None)");
  EXPECT_EQ(none[0].recovery_action, RecoveryAction::kNone);
  auto reboot = Parse(
      "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 "
      "(None) to 0x2 (Node Reboot Required)");
  EXPECT_EQ(reboot[0].recovery_action, RecoveryAction::kNodeReboot);
  auto garbage = Parse("NVRM: Xid (PCI:0000:01:00): 154 (");
  EXPECT_TRUE(garbage.empty());  // "154 (" is not "154," : not a well-formed line
}

TEST(NodeHealthKmsgTest, SxidLinesNameTheSwitchCodeAndFatality) {
  auto fatal = Parse(
      "[ 1108.858286] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, "
      "Link 28 sourcetrack timeout error (First)");
  ASSERT_EQ(fatal.size(), 1u);
  EXPECT_EQ(fatal[0].kind, KernelEventKind::kSxid);
  EXPECT_EQ(fatal[0].bdf, "0000:c3:00");
  EXPECT_EQ(fatal[0].code, 24007);
  EXPECT_EQ(fatal[0].fatal, true);
  auto non_fatal = Parse(
      "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 28006, Non-fatal, Link 46 MC "
      "TS crumbstore MCTO (First)");
  ASSERT_EQ(non_fatal.size(), 1u);
  EXPECT_EQ(non_fatal[0].fatal, false);
}

TEST(NodeHealthKmsgTest, FallenOffTheBusSpreadOverLinesTakesTheAddressFromAnEarlierLine) {
  // As dmesg prints the driver's multi-line message, one line at a time into one parser.
  KernelLogParser parser;
  EXPECT_TRUE(parser.Feed("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0").empty());
  EXPECT_TRUE(
      parser.Feed("               NVRM: (PCI ID: 10de:26b5) installed in this system has").empty());
  auto events =
      parser.Feed("               NVRM: fallen off the bus and is not responding to commands.");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kFallenOffBus);
  EXPECT_EQ(events[0].bdf, "0000:b3:00");
  EXPECT_EQ(events[0].text, "NVRM: fallen off the bus and is not responding to commands.");
}

TEST(NodeHealthKmsgTest, FallenOffTheBusInOneKmsgRecordWithEscapedNewlines) {
  KernelLogParser parser;
  const std::optional<LogRecord> record = ParseLogLine(
      "3,900,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) "
      "installed in this system has\\x0aNVRM: fallen off the bus and is not responding to "
      "commands.");
  ASSERT_TRUE(record);
  auto events = parser.Feed(record->message);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].bdf, "0000:b3:00");
}

TEST(NodeHealthKmsgTest, TheShortFallenOffTheBusLineNamesItsGpu) {
  auto events = Parse("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kFallenOffBus);
  EXPECT_EQ(events[0].bdf, "0000:3b:00");
}

TEST(NodeHealthKmsgTest, AnAddressTooFarBackIsNotGuessed) {
  KernelLogParser parser;
  parser.Feed("NVRM: The NVIDIA GPU 0000:b3:00.0");
  for (int i = 0; i < 5; ++i) parser.Feed("unrelated line");
  auto events = parser.Feed("NVRM: fallen off the bus and is not responding to commands.");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].bdf, "");
}

TEST(NodeHealthKmsgTest, Mlx5FatalPatternsAreNicFaults) {
  const char* fatal_lines[] = {
      "mlx5_core 0000:17:00.0: poll_health:807:(pid 0): device's health compromised - reached "
      "miss count",
      "mlx5_core 0000:17:00.0: mlx5_health_try_recover: unrecoverable hardware error",
      "mlx5_core 0000:17:00.0: wait_func:1134:(pid 5): ACCESS_REG(0x805) timeout. Will cause a "
      "leak of a command resource",
  };
  for (const char* line : fatal_lines) {
    auto events = Parse(line);
    ASSERT_EQ(events.size(), 1u) << line;
    EXPECT_EQ(events[0].kind, KernelEventKind::kNicFatal);
    EXPECT_EQ(events[0].bdf, "0000:17:00");
  }
  // Recoverable ones (TX timeouts) are not.
  EXPECT_TRUE(Parse("mlx5_core 0000:17:00.0 eth0: TX timeout detected").empty());
}

TEST(NodeHealthKmsgTest, OtherAndMalformedLinesGiveNothing) {
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("[Wed Dec 11 13:23:01 2024] Linux version 5.15.0-117-generic").empty());
  EXPECT_TRUE(
      Parse("NVRM: GPU at PCI:0000:66:00: GPU-12345678-1234-5678-9abc-def012345678").empty());
  EXPECT_TRUE(Parse("NVRM: Xid : 32, pid=2280636").empty());
  EXPECT_TRUE(Parse("NVRM: Xid (PCI:0000:66:00): abc, pid=2280636").empty());
}

}  // namespace
}  // namespace quotient::nodehealth
