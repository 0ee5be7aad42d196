// The library as the agent will use it, over fixtures on disk: a fake kernel log, a fake sysfs
// tree, a boot id and the state file; every poll is a freshly started agent (load the state,
// tail from its position, read sysfs, evaluate, save), so restarts happen all the time.
#include <gtest/gtest.h>

#include "nodehealth/evaluate.h"
#include "nodehealth/infiniband.h"
#include "nodehealth/kmsg.h"
#include "nodehealth/state.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::AppendFile;
using testing::ConditionOf;
using testing::HealthyNode;
using testing::ScratchDir;
using testing::WriteFile;
namespace fs = std::filesystem;

class NodeHealthPipelineTest : public ::testing::Test {
 protected:
  NodeHealthPipelineTest() {
    WriteFile(Port() / "state", "4: ACTIVE\n");
    WriteFile(Port() / "phys_state", "5: LinkUp\n");
    WriteFile(Port() / "rate", "400 Gb/sec (4X NDR)\n");
    WriteFile(Port() / "link_layer", "InfiniBand\n");
    WriteFile(Port() / "counters" / "link_downed", "0\n");
    WriteFile(Port() / "counters" / "symbol_error", "0\n");
    WriteFile(Kmsg(), "6,1,100,-;Linux version 6.1.0\n");
    WriteFile(BootIdFile(), "boot-one\n");
  }

  fs::path Port() const { return root_.path() / "sys/class/infiniband/mlx5_0/ports/1"; }
  fs::path Kmsg() const { return root_.path() / "kmsg"; }
  fs::path BootIdFile() const { return root_.path() / "boot_id"; }
  fs::path StateFile() const { return root_.path() / "state.json"; }

  // One run of a freshly started agent.
  Evaluation AgentPoll(int64_t now_s) {
    const Result<std::string> boot_id = ReadBootId(BootIdFile());
    EXPECT_TRUE(boot_id.ok());
    LoadedState loaded = LoadState(StateFile(), boot_id.value());
    last_origin_ = loaded.origin;
    KernelLogTailer tailer(Kmsg().string(), loaded.state.kernel_log);
    const Result<TailBatch> batch = tailer.Poll();
    EXPECT_TRUE(batch.ok()) << batch.message();
    const Result<std::vector<IbPortReading>> ports = ReadInfinibandPorts(root_.path() / "sys", {});
    EXPECT_TRUE(ports.ok()) << ports.message();

    NodeObservation node = HealthyNode(2);
    node.expected_ib_rate_gbps = 400;
    node.kernel_events = batch->events;
    node.kernel_log_lost_records = batch->lost_records;
    node.ib_ports = *ports;
    Evaluation e = Evaluate(node, loaded.state, DefaultPolicy(), now_s);
    e.state.kernel_log = tailer.position();
    EXPECT_TRUE(SaveState(StateFile(), e.state).ok());
    return e;
  }

  ScratchDir root_;
  StateOrigin last_origin_ = StateOrigin::kFresh;
};

TEST_F(NodeHealthPipelineTest, FaultsFromTheLogAndSysfsSurviveRestartsAndAReboot) {
  const Evaluation healthy = AgentPoll(1000);
  EXPECT_EQ(last_origin_, StateOrigin::kFresh);
  for (const NodeCondition& c : healthy.conditions) {
    EXPECT_EQ(c.status, ConditionStatus::kFalse) << ConditionTypeName(c.type);
  }

  // XID 79 on GPU 1, after two records the ring buffer overwrote; the IB port drops.
  AppendFile(Kmsg(),
             "3,4,200,-;NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus.\n");
  WriteFile(Port() / "state", "1: DOWN\n");
  WriteFile(Port() / "phys_state", "3: Disabled\n");
  const Evaluation first = AgentPoll(1030);
  EXPECT_EQ(last_origin_, StateOrigin::kLoaded);
  EXPECT_EQ(ConditionOf(first, ConditionType::kGpuXidFatal).message,
            "[gpu=GPU-0001 bdf=0000:01:00 code=79] GPU has fallen off the bus - "
            "RecommendedAction: POWER_CYCLE");
  ASSERT_EQ(first.events.size(), 1u);
  EXPECT_EQ(first.events[0].reason, "KernelLogGap");
  EXPECT_EQ(ConditionOf(first, ConditionType::kIbPortDegraded).status, ConditionStatus::kFalse);

  // Two more agents: the port's third bad poll raises it; the XID is not read twice but sticks.
  AgentPoll(1060);
  const Evaluation third = AgentPoll(1090);
  EXPECT_TRUE(third.events.empty());
  // Both port faults were raised at this poll: listed in name order, the first one's reason.
  EXPECT_EQ(ConditionOf(third, ConditionType::kIbPortDegraded).reason, "PhysNotLinkUp");
  EXPECT_EQ(ConditionOf(third, ConditionType::kIbPortDegraded).message,
            "[ib=mlx5_0 port=1] physical state 3: Disabled, expected 5: LinkUp - "
            "RecommendedAction: PORT_RESET; [ib=mlx5_0 port=1] port state 1: DOWN, expected 4: "
            "ACTIVE - RecommendedAction: PORT_RESET");
  EXPECT_EQ(ConditionOf(third, ConditionType::kGpuXidFatal).status, ConditionStatus::kTrue);

  // Reboot: a new boot id, a new kernel log, the port back. Everything measured is forgotten.
  WriteFile(BootIdFile(), "boot-two\n");
  WriteFile(Kmsg(), "6,1,100,-;Linux version 6.1.0\n");
  WriteFile(Port() / "state", "4: ACTIVE\n");
  WriteFile(Port() / "phys_state", "5: LinkUp\n");
  const Evaluation rebooted = AgentPoll(5000);
  EXPECT_EQ(last_origin_, StateOrigin::kNewBoot);
  for (const NodeCondition& c : rebooted.conditions) {
    EXPECT_EQ(c.status, ConditionStatus::kFalse) << ConditionTypeName(c.type);
  }
}

TEST_F(NodeHealthPipelineTest, InfinibandFaultsFromTheSysfsTree) {
  AgentPoll(1000);
  // An HDR rate on this NDR node: raised on the third consecutive poll.
  WriteFile(Port() / "rate", "200 Gb/sec (4X HDR)\n");
  EXPECT_EQ(ConditionOf(AgentPoll(1030), ConditionType::kIbPortDegraded).status,
            ConditionStatus::kFalse);
  EXPECT_EQ(ConditionOf(AgentPoll(1060), ConditionType::kIbPortDegraded).status,
            ConditionStatus::kFalse);
  EXPECT_EQ(ConditionOf(AgentPoll(1090), ConditionType::kIbPortDegraded).reason,
            "RateBelowExpected");
  // Back to NDR, but the link went down once: raised at once, whatever the restarts.
  WriteFile(Port() / "rate", "400 Gb/sec (4X NDR)\n");
  WriteFile(Port() / "counters" / "link_downed", "1\n");
  const Evaluation downed = AgentPoll(1120);
  ASSERT_EQ(downed.faults.size(), 2u);  // the rate fault still clearing, and the new one
  EXPECT_EQ(downed.faults[0].reason, "LinkDowned");
  // The whole device vanishes: missing from the third poll on. A port that is not there cannot
  // be seen healthy, so its earlier faults stay (the rate one had one healthy poll of three).
  fs::remove_all(root_.path() / "sys/class/infiniband/mlx5_0");
  AgentPoll(1150);
  AgentPoll(1180);
  const Evaluation missing = AgentPoll(1210);
  std::vector<std::string> reasons;
  for (const Fault& f : missing.faults) reasons.push_back(f.reason);
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"DeviceMissing", "LinkDowned", "RateBelowExpected"}));
}

}  // namespace
}  // namespace quotient::nodehealth
