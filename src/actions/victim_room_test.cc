// NodeRoom: the solver's per-node necessary condition, GPU and CPU together.
#include "actions/victim_room.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "core/snapshot_builder.h"

namespace quotient::actions::solver {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

class NodeRoomTest : public ::testing::Test {
 protected:
  NodeRoomTest() {
    // n1: 2 GPUs, 8 cores. One GPU is free but a CPU-only pod holds 7 cores; a GPU pod holds
    // the other GPU and the last core. The preemptor asks for 1 GPU and 4 cores.
    core::ClusterObjects o;
    o.nodes = {MakeNode("n1").Gpus(2).Cpu("8")};
    o.queues = {MakeQueue("a").Gpu(2, -1, 1)};
    o.pods = {MakePod("ns", "cpu-hog").Queue("a").Cpu("7").RunningOn("n1"),
              MakePod("ns", "gpu-user").Queue("a").Gpus(1).Cpu("1").RunningOn("n1"),
              MakePod("ns", "preemptor").Queue("a").Gpus(1).Cpu("4")};
    snapshot_ = core::BuildSnapshot(o, core::SnapshotOptions{}).snapshot;
  }
  VictimUnit Unit(const std::string& pod) {
    const Index p = snapshot_.FindPod("ns/" + pod);
    return {snapshot_.pods[static_cast<size_t>(p)].job, {p}};
  }
  core::Snapshot snapshot_;
  framework::SchedulerConfig config_;
};

TEST_F(NodeRoomTest, GpuRoomOnANodeWithoutCpuIsNoRoom) {
  framework::Session session(snapshot_, config_);
  NodeRoom room(session, {snapshot_.FindPod("ns/preemptor")});
  EXPECT_FALSE(room.CouldFit());  // a free GPU, but 0 cores idle
  const VictimUnit gpu_user = Unit("gpu-user");
  room.Free(gpu_user);
  EXPECT_FALSE(room.CouldFit());  // two GPUs, one core
  const VictimUnit hog = Unit("cpu-hog");
  room.Free(hog);  // a CPU-only victim frees the cores
  EXPECT_TRUE(room.CouldFit());
  EXPECT_EQ(room.Slots(), 2);  // 2 GPUs and 8 cores: two pods of 1 GPU and 4 cores
  room.Unfree(gpu_user);
  EXPECT_EQ(room.Slots(), 1);
  room.Unfree(hog);
  EXPECT_FALSE(room.CouldFit());
}

// KAI's idle-GPUs filter (solvers/accumulated_scenario_filters/idle_gpus) counts a node's idle
// and releasing MIG instances in GPU units (ResourceVector.TotalGPUs), as a MIG pod's request is
// counted (GetGpusQuota): a MIG preemptor is not filtered out for want of GPU devices.
TEST(FreeRoom, CountsIdleAndReleasingMigInstancesInGpuUnits) {
  core::ClusterObjects o;
  o.nodes = {MakeNode("mig")
                 .Cpu("8")
                 .Scalar("nvidia.com/mig-1g.10gb", 2)
                 .Scalar("nvidia.com/mig-3g.40gb", 2),
             MakeNode("gpus").Gpus(2).Cpu("8"),
             MakeNode("down").Scalar("nvidia.com/mig-3g.40gb", 2).NotReady()};
  o.queues = {MakeQueue("a").Gpu(2, -1, 1)};
  core::PodObject one = MakePod("ns", "one").Queue("a").Cpu("1").RunningOn("mig");
  one.containers.front().requests.SetScalar("nvidia.com/mig-1g.10gb", core::Quantity(1000));
  core::PodObject three = MakePod("ns", "three").Queue("a").Cpu("1").RunningOn("mig").Deleting();
  three.containers.front().requests.SetScalar("nvidia.com/mig-3g.40gb", core::Quantity(1000));
  o.pods = {one, three, MakePod("ns", "whole").Queue("a").Gpus(1).Cpu("1").RunningOn("gpus")};
  const core::Snapshot snapshot = core::BuildSnapshot(o, core::SnapshotOptions{}).snapshot;
  framework::SchedulerConfig config;
  framework::Session session(snapshot, config);
  // Devices: 1 free GPU. MIG: one idle 1g, one idle 3g and one releasing 3g = 1 + 3 + 3. The
  // node that is not ready counts for nothing.
  EXPECT_EQ(FreeRoom(session).gpu_milli, 1000 + 7000);
  EXPECT_EQ(FreeRoom(session).cpu_milli, 8000 - 1 * 1000 + 8000 - 1000);
}

}  // namespace
}  // namespace quotient::actions::solver
