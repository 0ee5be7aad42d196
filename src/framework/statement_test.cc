#include "framework/statement.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"

namespace quotient::framework {
namespace {

using core::ShareResource;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

constexpr ShareResource kGpu = ShareResource::kGpu;

// One node with 4 GPUs and 16 cores; a running 2-GPU pod that is being deleted (releasing), a
// running 1-GPU pod, and two pending pods.
class StatementTest : public ::testing::Test {
 protected:
  StatementTest() {
    objects_.nodes.push_back(MakeNode("n1").Gpus(4).Cpu("16"));
    objects_.queues.push_back(MakeQueue("q").Gpu(4, -1, 1));
    objects_.pods.push_back(
        MakePod("ns", "going").Queue("q").Gpus(2).Cpu("4").RunningOn("n1").Deleting());
    objects_.pods.push_back(MakePod("ns", "staying").Queue("q").Gpus(1).Cpu("4").RunningOn("n1"));
    objects_.pods.push_back(MakePod("ns", "a").Queue("q").Gpus(1).Cpu("4"));
    objects_.pods.push_back(MakePod("ns", "b").Queue("q").Gpus(2).Cpu("8"));
    snapshot_ = core::BuildSnapshot(objects_, core::SnapshotOptions{}).snapshot;
    session_ = std::make_unique<Session>(snapshot_, config_);
  }
  Index Pod(std::string_view key) { return snapshot_.FindPod(key); }
  Quantity QueueAllocatedGpu() {
    return session_->shares()[snapshot_.FindQueue("q")].resources[kGpu].allocated;
  }
  const NodeState& Node() { return session_->state().node(0); }
  Placement Whole(std::vector<int32_t> devices) {
    Placement p;
    p.node = 0;
    p.devices = std::move(devices);
    p.whole_gpus = true;
    p.portion_milli = Quantity(1000);
    return p;
  }

  core::ClusterObjects objects_;
  core::Snapshot snapshot_;
  SchedulerConfig config_;
  std::unique_ptr<Session> session_;
};

TEST_F(StatementTest, OverlayStartsFromTheSnapshot) {
  // 16 cores minus 4 (going) and 4 (staying); going's 4 cores are also releasing.
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(4000));
  // Devices: going holds 0 and 1 (releasing), staying holds 2; 3 is free.
  EXPECT_EQ(Node().devices[0].releasing_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[2].used_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[3].free_milli(), Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));  // releasing pods are not allocated
}

TEST_F(StatementTest, AllocateUpdatesNodeDevicesAndQueueAndRollbackRestoresAll) {
  Statement s(*session_, "allocate");
  const size_t cp = s.Checkpoint();
  s.Allocate(Pod("ns/a"), Whole({3}));
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(4000));
  EXPECT_EQ(Node().devices[3].used_milli, Quantity(1000));
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).status, core::PodStatus::kAllocated);
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(2000));
  s.Rollback(cp);
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().devices[3].free_milli(), Quantity(1000));
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).status, core::PodStatus::kPending);
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
}

// A pipelined pod counts in its queue's allocation, as KAI's Statement.Pipeline fires the
// allocate event: the queue holds its running pod's 1 GPU plus b's 2.
// A pipelined pod takes what releasing pods give back first and only the rest from idle, so
// idle resources stay for pods that can start now (KAI's NodeInfo.addTaskResources charges a
// Pipelined task to ReleasingVector).
TEST_F(StatementTest, PipelineTakesReleasingFirstThenIdleAndCountsAsAllocated) {
  Statement s(*session_, "allocate");
  // b needs 8 cores: the 4 releasing ones, then 4 of the 8 idle; its two GPUs are the
  // releasing devices 0 and 1.
  s.Pipeline(Pod("ns/b"), Whole({0, 1}));
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(0));
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(4000));
  EXPECT_EQ(Node().devices[0].releasing_milli, Quantity(0));
  EXPECT_EQ(Node().devices[0].used_milli, Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(3000));
  // a then needs 4 cores: nothing is releasing any more, so they come from idle.
  s.Pipeline(Pod("ns/a"), Whole({3}));
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(0));
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(0));
  s.Discard();
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(4000));
  EXPECT_EQ(Node().devices[0].releasing_milli, Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
}

TEST_F(StatementTest, EvictMovesResourcesToReleasingAndShrinksTheQueue) {
  Statement s(*session_, "reclaim");
  s.Evict(Pod("ns/staying"), "fair share");
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().devices[2].releasing_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[2].used_milli, Quantity(0));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(0));
  s.Discard();
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(4000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
  EXPECT_EQ(session_->state().pod(Pod("ns/staying")).status, core::PodStatus::kRunning);
}

// A pod the statement evicted and then placed back where it was keeps running: its resources
// and its queue's allocation come back, and Commit records neither operation (KAI's
// Statement.Pipeline onto the pod's own node unevicts it).
TEST_F(StatementTest, UnevictGivesThePodItsPlaceBackAndCommitsNothingForIt) {
  const Index staying = Pod("ns/staying");
  Statement s(*session_, "reclaim");
  EXPECT_FALSE(s.Unevict(staying));  // not evicted by this statement
  s.Evict(staying, "fair share");
  s.Allocate(Pod("ns/a"), Whole({3}));  // takes 4 idle cores and the free device
  ASSERT_TRUE(s.CanUnevict(staying));
  const size_t cp = s.Checkpoint();
  ASSERT_TRUE(s.Unevict(staying));
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kRunning);
  EXPECT_EQ(session_->state().pod(staying).devices, std::vector<int32_t>{2});
  EXPECT_EQ(Node().devices[2].used_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[2].releasing_milli, Quantity(0));
  // Its 4 cores leave the releasing pool (going's 4 stay there); idle is what a left.
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(4000));
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(4000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(2000));  // staying again, and a
  EXPECT_FALSE(s.Unevict(staying));                // once only
  s.Rollback(cp);
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kReleasing);
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().devices[2].releasing_milli, Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
  ASSERT_TRUE(s.Unevict(staying));
  s.Commit();
  ASSERT_EQ(session_->decisions().size(), 1u);
  EXPECT_EQ(session_->decisions()[0].kind, DecisionKind::kBind);
  EXPECT_EQ(session_->decisions()[0].pod, "ns/a");
}

// Once another pod took the device an evicted pod gave back, the pod cannot have it back.
TEST_F(StatementTest, NoUnevictOntoADeviceSomeoneElseTook) {
  const Index staying = Pod("ns/staying");
  Statement s(*session_, "reclaim");
  s.Evict(staying, "fair share");
  s.Pipeline(Pod("ns/b"), Whole({2, 3}));  // device 2 from releasing, 3 free
  EXPECT_FALSE(s.CanUnevict(staying));
  EXPECT_FALSE(s.Unevict(staying));
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kReleasing);
}

// A pod pipelined by the same statement onto the evicted pod's device moves to a free device
// of the node, and the evicted pod keeps running on its own.
TEST_F(StatementTest, UnevictMovesAPipelinedPodOffTheOwnDevice) {
  const Index staying = Pod("ns/staying");
  const Index a = Pod("ns/a");
  Statement s(*session_, "consolidation");
  s.Evict(staying, "consolidation");
  s.Pipeline(a, Whole({2}));  // staying's device, from releasing
  ASSERT_FALSE(s.CanUnevict(staying));
  ASSERT_TRUE(s.UnevictMovingPipelined(staying));
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kRunning);
  EXPECT_EQ(session_->state().pod(staying).devices, std::vector<int32_t>{2});
  EXPECT_EQ(session_->state().pod(a).status, core::PodStatus::kPipelined);
  EXPECT_EQ(session_->state().pod(a).devices, std::vector<int32_t>{3});  // the only free one
  EXPECT_EQ(Node().devices[2].used_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[2].releasing_milli, Quantity::Zero());
  EXPECT_EQ(Node().devices[3].used_milli, Quantity(1000));
  // going's devices still give back what they held; nobody was put on them.
  EXPECT_EQ(Node().devices[0].releasing_milli, Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(2000));  // staying and a
  s.Commit();
  ASSERT_EQ(session_->decisions().size(), 1u);  // the eviction and its undoing cancel out
  EXPECT_EQ(session_->decisions()[0].kind, DecisionKind::kPipeline);
  EXPECT_EQ(session_->decisions()[0].pod, "ns/a");
}

TEST_F(StatementTest, UnevictMovingPipelinedRollsBackToTheStart) {
  const Index staying = Pod("ns/staying");
  Statement s(*session_, "consolidation");
  s.Evict(staying, "consolidation");
  s.Pipeline(Pod("ns/a"), Whole({2}));
  ASSERT_TRUE(s.UnevictMovingPipelined(staying));
  s.Rollback(0);
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kRunning);
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).status, core::PodStatus::kPending);
  EXPECT_EQ(Node().devices[2].used_milli, Quantity(1000));
  EXPECT_EQ(Node().devices[3].free_milli(), Quantity(1000));
  EXPECT_EQ(Node().idle.cpu_milli, Quantity(8000));
  EXPECT_EQ(Node().releasing.cpu_milli, Quantity(4000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
}

// An allocated pod is starting now on the device it was given: it is not moved.
TEST_F(StatementTest, UnevictMovesNoAllocatedPod) {
  const Index staying = Pod("ns/staying");
  Statement s(*session_, "consolidation");
  s.Evict(staying, "consolidation");
  s.Allocate(Pod("ns/a"), Whole({2}));
  EXPECT_FALSE(s.UnevictMovingPipelined(staying));
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kReleasing);
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).devices, std::vector<int32_t>{2});
}

// No device that nobody holds or gives back: nothing changes.
TEST_F(StatementTest, UnevictMovingPipelinedNeedsAFreeDevice) {
  const Index staying = Pod("ns/staying");
  Statement s(*session_, "consolidation");
  s.Evict(staying, "consolidation");
  s.Pipeline(Pod("ns/b"), Whole({2, 3}));
  EXPECT_FALSE(s.UnevictMovingPipelined(staying));
  EXPECT_EQ(session_->state().pod(staying).status, core::PodStatus::kReleasing);
  EXPECT_EQ(session_->state().pod(Pod("ns/b")).devices, (std::vector<int32_t>{2, 3}));
}

TEST_F(StatementTest, ConvertingAllocationsToPipelinesKeepsThePlaces) {
  Statement s(*session_, "allocate");
  s.Allocate(Pod("ns/a"), Whole({3}));
  s.Pipeline(Pod("ns/b"), Whole({0, 1}));
  ASSERT_TRUE(s.HasPipelinedSince(0));
  s.ConvertAllocatedToPipelined(0);
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).status, core::PodStatus::kPipelined);
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).devices, std::vector<int32_t>{3});
  // The running pod's 1 GPU, a's 1 and b's 2: a pipeline counts as an allocation does.
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(4000));
  s.Commit();
  ASSERT_EQ(session_->decisions().size(), 2u);
  EXPECT_EQ(session_->decisions()[0].kind, DecisionKind::kPipeline);
  EXPECT_EQ(session_->decisions()[0].pod, "ns/a");
  EXPECT_EQ(session_->decisions()[1].node, "n1");
}

// A shared GPU group opened on a device nobody held moves, when its pods are turned into
// pipelines, to a device only releasing pods hold; a pod that joined the group follows it.
TEST_F(StatementTest, ConvertingAllocationsToPipelinesGivesAFreeDeviceBack) {
  Statement s(*session_, "allocate");
  const auto shared = [&](Quantity portion) {
    Placement p;
    p.node = 0;
    p.devices = {3};
    p.gpu_groups = {"grp"};
    p.portion_milli = portion;
    return p;
  };
  s.Allocate(Pod("ns/a"), shared(Quantity(500)));
  s.Allocate(Pod("ns/b"), shared(Quantity(250)));
  s.ConvertAllocatedToPipelined(0);
  // Devices 0 and 1 are given back by the terminating pod; the first of them takes the group.
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).devices, std::vector<int32_t>{0});
  EXPECT_EQ(session_->state().pod(Pod("ns/b")).devices, std::vector<int32_t>{0});
  EXPECT_EQ(session_->state().pod(Pod("ns/b")).status, core::PodStatus::kPipelined);
  EXPECT_EQ(Node().devices[0].group, "grp");
  EXPECT_EQ(Node().devices[3].used_milli, Quantity::Zero());
  EXPECT_EQ(Node().devices[3].holders, 0);
}

TEST_F(StatementTest, CommitTurnsOperationsIntoDecisionsInOrder) {
  {
    Statement s(*session_, "allocate");
    s.Allocate(Pod("ns/a"), Whole({3}));
    s.Commit();
  }
  ASSERT_EQ(session_->decisions().size(), 1u);
  EXPECT_EQ(session_->decisions()[0].kind, DecisionKind::kBind);
  EXPECT_EQ(session_->decisions()[0].action, "allocate");
  EXPECT_EQ(session_->state().pod(Pod("ns/a")).status, core::PodStatus::kAllocated);
}

TEST_F(StatementTest, AStatementDroppedWithoutCommitUndoesItself) {
  {
    Statement s(*session_, "allocate");
    s.Allocate(Pod("ns/a"), Whole({3}));
  }
  EXPECT_TRUE(session_->decisions().empty());
  EXPECT_EQ(Node().devices[3].free_milli(), Quantity(1000));
  EXPECT_EQ(QueueAllocatedGpu(), Quantity(1000));
}

TEST_F(StatementTest, SharedGpuPortionsAccumulateOnOneGroup) {
  Statement s(*session_, "allocate");
  Placement half;
  half.node = 0;
  half.devices = {3};
  half.gpu_groups = {"n1-gpu3"};
  half.portion_milli = Quantity(500);
  s.Allocate(Pod("ns/a"), half);
  EXPECT_EQ(Node().devices[3].kind, DeviceState::Kind::kShared);
  EXPECT_EQ(Node().devices[3].group, "n1-gpu3");
  EXPECT_EQ(Node().devices[3].free_milli(), Quantity(500));
  s.Discard();
  EXPECT_EQ(Node().devices[3].kind, DeviceState::Kind::kIdle);
}

// KAI's node_info.go, addTaskResources: only a Releasing pod's resources are releasing; a
// StuckInReleasing pod (Running, deleted longer than the threshold ago) holds them.
TEST(ClusterStateTest, StuckInReleasingPodsHoldTheirResourcesInsteadOfReleasingThem) {
  constexpr int64_t kNow = 1'000'000;
  core::ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n1").Gpus(4).Cpu("16").Scalar("example.com/nic", 4));
  objects.queues.push_back(MakeQueue("q").Gpu(4, -1, 1));
  core::PodObject stuck =
      MakePod("ns", "stuck").Queue("q").Gpus(1).Cpu("2").RunningOn("n1").DeletedAt(kNow - 121);
  stuck.containers.front().requests.SetScalar("example.com/nic", Quantity(1000));
  objects.pods.push_back(stuck);
  objects.pods.push_back(
      MakePod("ns", "recent").Queue("q").Gpus(1).Cpu("4").RunningOn("n1").DeletedAt(kNow - 120));
  objects.pods.push_back(MakePod("ns", "shared-stuck")
                             .Queue("q")
                             .Cpu("1")
                             .Annotation("gpu-fraction", "0.5")
                             .Label("runai-gpu-group", "g")
                             .RunningOn("n1")
                             .DeletedAt(kNow - 3600));
  core::SnapshotOptions options;
  options.now = core::Time(std::chrono::seconds(kNow));
  const core::Snapshot snapshot = core::BuildSnapshot(objects, options).snapshot;
  const ClusterState state(snapshot, std::chrono::seconds(120));
  const NodeState& node = state.node(0);
  // Both are out of idle; only the recent one's 4 cores are releasing.
  EXPECT_EQ(node.idle.cpu_milli, Quantity(16000 - 2000 - 4000 - 1000));
  EXPECT_EQ(node.releasing.cpu_milli, Quantity(4000));
  EXPECT_EQ(node.idle.Scalar("example.com/nic"), Quantity(3000));
  EXPECT_EQ(node.releasing.Scalar("example.com/nic"), Quantity(0));
  Quantity releasing_gpu;
  Quantity used_gpu;
  for (const DeviceState& d : node.devices) {
    releasing_gpu += d.releasing_milli;
    used_gpu += d.used_milli;
  }
  EXPECT_EQ(releasing_gpu, Quantity(1000));   // recent's device
  EXPECT_EQ(used_gpu, Quantity(1000 + 500));  // stuck's device and the stuck half
  // A longer threshold: nothing is stuck, everything deleted is releasing.
  const ClusterState patient(snapshot, std::chrono::seconds(3600));
  EXPECT_EQ(patient.node(0).releasing.cpu_milli, Quantity(2000 + 4000 + 1000));
}

}  // namespace
}  // namespace quotient::framework
