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

}  // namespace
}  // namespace quotient::actions::solver
