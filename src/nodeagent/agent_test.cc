// One node agent, dry run, against the fake NVML, a fake kernel log, an empty sysfs and a state
// file in a temporary folder: a fatal XID in the log becomes GpuXidFatal, and stays across a
// restart of the agent.
#include "nodeagent/agent.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace quotient::nodeagent {
namespace {

namespace fs = std::filesystem;

class NodeAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "node-agent-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    fs::create_directories(dir_ + "/sys");
    std::ofstream(dir_ + "/boot_id") << "boot-1\n";
    std::ofstream(dir_ + "/kmsg") << "";
    setenv("FAKE_NVML_UUIDS", "GPU-a,GPU-b", 1);
  }
  void TearDown() override {
    unsetenv("FAKE_NVML_UUIDS");
    fs::remove_all(dir_);
  }
  AgentOptions Options() const {
    AgentOptions options;
    options.nvml.library = QUOTIENT_FAKE_NVML_PATH;
    options.kmsg_path = dir_ + "/kmsg";
    options.sysfs_root = dir_ + "/sys";
    options.state_file = dir_ + "/state.json";
    options.boot_id_path = dir_ + "/boot_id";
    options.expected_gpus = 2;
    return options;
  }
  static const nodehealth::NodeCondition& Condition(const PollReport& r, const char* type) {
    for (const nodehealth::NodeCondition& c : r.evaluation.conditions) {
      if (nodehealth::ConditionTypeName(c.type) == type) return c;
    }
    static const nodehealth::NodeCondition none;
    ADD_FAILURE() << "no condition " << type;
    return none;
  }
  std::string dir_;
};

TEST_F(NodeAgentTest, AHealthyNodeReportsEveryConditionFalse) {
  NodeAgent agent(Options(), nullptr);
  ASSERT_TRUE(agent.Start().ok());
  const PollReport r = agent.PollOnce(1'000'000);
  ASSERT_EQ(r.evaluation.conditions.size(), 8u);
  for (const nodehealth::NodeCondition& c : r.evaluation.conditions) {
    EXPECT_EQ(c.status, nodehealth::ConditionStatus::kFalse)
        << nodehealth::ConditionTypeName(c.type) << ": " << c.reason << " " << c.message;
  }
  EXPECT_TRUE(fs::exists(dir_ + "/state.json"));
}

TEST_F(NodeAgentTest, AFatalXidInTheKernelLogIsGpuXidFatalAndSurvivesARestart) {
  {
    NodeAgent agent(Options(), nullptr);
    ASSERT_TRUE(agent.Start().ok());
    agent.PollOnce(1'000'000);
    // The fake's first GPU sits at 0000:01:00.0.
    std::ofstream(dir_ + "/kmsg", std::ios::app)
        << "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n";
    const PollReport r = agent.PollOnce(1'000'030);
    const nodehealth::NodeCondition& xid = Condition(r, "GpuXidFatal");
    EXPECT_EQ(xid.status, nodehealth::ConditionStatus::kTrue);
    EXPECT_EQ(xid.reason, "Xid79");
    EXPECT_NE(xid.message.find("code=79"), std::string::npos) << xid.message;
  }
  // A new agent (a restart) on the same boot: the fault is still there, not read again.
  NodeAgent restarted(Options(), nullptr);
  ASSERT_TRUE(restarted.Start().ok());
  const PollReport after = restarted.PollOnce(1'000'060);
  EXPECT_EQ(Condition(after, "GpuXidFatal").status, nodehealth::ConditionStatus::kTrue);
  // A reboot (new boot id) starts over.
  std::ofstream(dir_ + "/boot_id") << "boot-2\n";
  NodeAgent rebooted(Options(), nullptr);
  ASSERT_TRUE(rebooted.Start().ok());
  EXPECT_EQ(Condition(rebooted.PollOnce(1'000'090), "GpuXidFatal").status,
            nodehealth::ConditionStatus::kFalse);
}

TEST_F(NodeAgentTest, WithoutNvmlTheGpuConditionsAreUnknownNotFalse) {
  AgentOptions options = Options();
  options.nvml.library = dir_ + "/no-such-libnvidia-ml.so.1";
  NodeAgent agent(options, nullptr);
  ASSERT_TRUE(agent.Start().ok());
  const PollReport r = agent.PollOnce(1'000'000);
  EXPECT_EQ(r.nvml.status.state, nodehealth::NvmlState::kNotInstalled);
  // Two GPUs are expected, so an absent NVML is not "no GPUs".
  EXPECT_NE(Condition(r, "GpuMemoryDegraded").status, nodehealth::ConditionStatus::kFalse);
}

}  // namespace
}  // namespace quotient::nodeagent
