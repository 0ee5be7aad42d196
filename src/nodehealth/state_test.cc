// The state file: an agent restart continues where it stopped, a reboot starts afresh, and a
// corrupt file is reported and ignored, never a crash.
#include "nodehealth/state.h"

#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::ConditionOf;
using testing::HealthyNode;
using testing::ScratchDir;
using testing::WriteFile;

constexpr char kBoot[] = "6f1f4b1e-0c44-4a43-9d3c-5e0c3d1f0a11";

// A state with something in every part.
HealthState BusyState() {
  NodeObservation node = HealthyNode();
  node.gpus[0].xids = {79};
  node.gpus[1].pcie.current_width = 8;
  node.gpus[1].pcie.replay = 7;
  node.gpus[1].xids = {13};
  IbPortReading port;
  port.device = "mlx5_0";
  port.state = 4;
  port.phys_state = 5;
  port.link_downed = 2;
  port.symbol_error = 65535;
  node.ib_ports = {port};
  KernelEvent hint;
  hint.kind = KernelEventKind::kXid;
  hint.bdf = "0000:01:00";
  hint.code = 154;
  hint.recovery_action = RecoveryAction::kDrainAndReset;
  node.kernel_events = {hint};
  node.gpus[1].recovery_action.reset();
  node.validation_passed_at_s = 500;
  HealthState state;
  state.boot_id = kBoot;
  state.kernel_log = TailPosition{4096, 77};
  return Evaluate(node, state, DefaultPolicy(), 1000).state;
}

TEST(NodeHealthStateTest, EveryPartSurvivesWritingAndReading) {
  const HealthState state = BusyState();
  ASSERT_FALSE(state.faults.empty());
  ASSERT_FALSE(state.windows.empty());
  ASSERT_FALSE(state.stated_recovery.empty());
  ASSERT_FALSE(state.saturated.empty());
  ASSERT_FALSE(state.app_xids.empty());
  const std::string text = SerializeState(state);
  Result<HealthState> back = ParseState(text);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(SerializeState(*back), text);
  EXPECT_EQ(back->kernel_log.offset, 4096u);
  EXPECT_EQ(back->kernel_log.last_seq, 77u);
  EXPECT_EQ(back->last_validation_s, 500);
  EXPECT_EQ(back->stated_recovery.at("0000:01:00"), RecoveryAction::kDrainAndReset);
}

TEST(NodeHealthStateTest, ARestartedAgentReachesTheSameConclusions) {
  // PCIe width needs two consecutive polls: the agent restarts between them.
  ScratchDir dir;
  const auto file = dir.path() / "state.json";
  NodeObservation narrow = HealthyNode(1);
  narrow.gpus[0].pcie.current_width = 8;
  HealthState fresh;
  fresh.boot_id = kBoot;
  const Evaluation first = Evaluate(narrow, fresh, DefaultPolicy(), 1000);
  ASSERT_TRUE(SaveState(file, first.state).ok());

  const LoadedState loaded = LoadState(file, kBoot);
  EXPECT_EQ(loaded.origin, StateOrigin::kLoaded);
  const Evaluation after_restart = Evaluate(narrow, loaded.state, DefaultPolicy(), 1030);
  const Evaluation without_restart = Evaluate(narrow, first.state, DefaultPolicy(), 1030);
  EXPECT_EQ(ConditionOf(after_restart, ConditionType::kGpuPcieDegraded).status,
            ConditionStatus::kTrue);
  EXPECT_EQ(SerializeState(after_restart.state), SerializeState(without_restart.state));
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
}

TEST(NodeHealthStateTest, ACounterWindowContinuesAcrossARestart) {
  ScratchDir dir;
  const auto file = dir.path() / "state.json";
  Policy policy = DefaultPolicy();
  NodeObservation node = HealthyNode(1);
  HealthState state;
  state.boot_id = kBoot;
  // Three bad PCIe replay windows of 300 s, one poll each, with a restart before the third.
  for (int64_t t = 0, replays = 0; t <= 900; t += 300, replays += 500) {
    node.gpus[0].pcie.replay = replays;
    state = Evaluate(node, state, policy, t).state;
    if (t == 600) {
      ASSERT_TRUE(SaveState(file, state).ok());
      state = LoadState(file, kBoot).state;
    }
  }
  // Three consecutive windows each saw 500 replays, more than 100: sustained for three windows.
  EXPECT_EQ(state.faults.count("GpuPcieDegraded|gpu/0000:00:00|ReplayRateHigh"), 1u);
}

TEST(NodeHealthStateTest, ANewBootStartsAfresh) {
  ScratchDir dir;
  const auto file = dir.path() / "state.json";
  ASSERT_TRUE(SaveState(file, BusyState()).ok());
  const LoadedState loaded = LoadState(file, "a-later-boot");
  EXPECT_EQ(loaded.origin, StateOrigin::kNewBoot);
  EXPECT_TRUE(loaded.state.faults.empty());
  EXPECT_TRUE(loaded.state.windows.empty());
  EXPECT_EQ(loaded.state.boot_id, "a-later-boot");
  EXPECT_EQ(loaded.note, "state file " + file.string() + " is from boot " + kBoot +
                             ": the node rebooted, starting afresh");
}

TEST(NodeHealthStateTest, NoFileIsAFreshStart) {
  ScratchDir dir;
  const LoadedState loaded = LoadState(dir.path() / "state.json", kBoot);
  EXPECT_EQ(loaded.origin, StateOrigin::kFresh);
  EXPECT_EQ(loaded.state.boot_id, kBoot);
}

TEST(NodeHealthStateTest, ACorruptFileIsReportedAndIgnored) {
  ScratchDir dir;
  const auto file = dir.path() / "state.json";
  const std::string valid = SerializeState(BusyState());
  const std::string corrupt[] = {
      "",   "\x01\x02 not json", valid.substr(0, valid.size() / 2),  // a torn write
      "[]", R"({"version": 2})", R"({"version": 1, "boot_id": 7})",
  };
  for (const std::string& text : corrupt) {
    WriteFile(file, text);
    const LoadedState loaded = LoadState(file, kBoot);
    EXPECT_EQ(loaded.origin, StateOrigin::kCorrupt) << text;
    EXPECT_TRUE(loaded.state.faults.empty());
    EXPECT_TRUE(loaded.note.starts_with("state file " + file.string() + " ignored: "))
        << loaded.note;
  }
}

TEST(NodeHealthStateTest, NamesOutsideOurEnumerationsAreCorruption) {
  std::string text = SerializeState(BusyState());
  const size_t at = text.find("\"gpu-lost\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"gpu-gone\"");
  Result<HealthState> parsed = ParseState(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.message(), "unknown signal 'gpu-gone'");
}

TEST(NodeHealthStateTest, SavingIntoAMissingFolderIsAnError) {
  const Status status = SaveState("/nonexistent/dir/state.json", HealthState{});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "state file /nonexistent/dir/state.json.tmp: No such file or directory");
}

TEST(NodeHealthStateTest, TheBootIdIsTheFilesFirstLine) {
  ScratchDir dir;
  WriteFile(dir.path() / "boot_id", std::string(kBoot) + "\n");
  EXPECT_EQ(ReadBootId(dir.path() / "boot_id").value(), kBoot);
  WriteFile(dir.path() / "empty", "\n");
  EXPECT_FALSE(ReadBootId(dir.path() / "empty").ok());
  EXPECT_FALSE(ReadBootId(dir.path() / "absent").ok());
}

}  // namespace
}  // namespace quotient::nodehealth
