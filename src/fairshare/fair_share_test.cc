// End-to-end fair share: objects -> snapshot -> ComputeFairShare. Expected values worked out by
// hand in the comments from the rules in division.h and fair_share.h.
#include "fairshare/fair_share.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "core/snapshot_builder.h"

namespace quotient::fairshare {
namespace {

using core::ShareResource;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

constexpr ShareResource kGpu = ShareResource::kGpu;

class FairShareTest : public ::testing::Test {
 protected:
  void Compute() {
    core::SnapshotOptions options;
    snapshot_ = core::BuildSnapshot(objects_, options).snapshot;
    shares_ = ComputeFairShare(snapshot_, FairShareOptions{});
  }
  const QueueShare& Q(std::string_view name) {
    const core::Index i = snapshot_.FindQueue(name);
    EXPECT_NE(i, core::kNone) << name;
    return shares_[i];
  }
  Quantity FairGpus(std::string_view name) { return Q(name).resources[kGpu].fair_share; }
  void PendingPods(const std::string& queue, int count, int64_t gpus_each) {
    for (int i = 0; i < count; ++i) {
      objects_.pods.push_back(
          MakePod("ns", queue + "-p" + std::to_string(i)).Queue(queue).Gpus(gpus_each));
    }
  }

  core::ClusterObjects objects_;
  core::Snapshot snapshot_;
  QueueShares shares_;
};

TEST_F(FairShareTest, ThreeLevelTreeDividesTopDown) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(8));
  objects_.nodes.push_back(MakeNode("n2").Gpus(8));
  objects_.queues.push_back(MakeQueue("org").Gpu(-1, -1, 1));
  objects_.queues.push_back(MakeQueue("dept-a").Parent("org").Gpu(6, -1, 1).Created(100));
  objects_.queues.push_back(MakeQueue("dept-b").Parent("org").Gpu(4, -1, 3).Created(200));
  objects_.queues.push_back(MakeQueue("a1").Parent("dept-a").Gpu(4, -1, 1));
  objects_.queues.push_back(MakeQueue("a2").Parent("dept-a").Gpu(2, -1, 1));
  objects_.queues.push_back(MakeQueue("b1").Parent("dept-b").Gpu(4, -1, 1));
  PendingPods("a1", 8, 1);
  objects_.pods.push_back(MakePod("ns", "a2-run").Queue("a2").Gpus(1).RunningOn("n1"));
  PendingPods("b1", 10, 1);
  Compute();
  // org: the only top-level queue, unlimited quota: min(16, request 19) = 16.
  EXPECT_EQ(FairGpus("org"), Quantity(16000));
  // dept-a wants 9, dept-b 10. Deserved 6 and 4; 6 left split 1:3 -> offered 1.5 and 4.5,
  // given 1 and 4, remainders .5 each; the last GPU goes to the older dept-a.
  EXPECT_EQ(FairGpus("dept-a"), Quantity(8000));
  EXPECT_EQ(FairGpus("dept-b"), Quantity(8000));
  // dept-a's 8: a1 deserved 4, a2 deserved 1 (its request); a1 takes the 3 left.
  EXPECT_EQ(FairGpus("a1"), Quantity(7000));
  EXPECT_EQ(FairGpus("a2"), Quantity(1000));
  // dept-b's 8: b1 deserved 4, then it is offered the remaining 4 and, wanting 6 more, takes them.
  EXPECT_EQ(FairGpus("b1"), Quantity(8000));
  // Allocation and requests are summed up the tree.
  EXPECT_EQ(Q("org").resources[kGpu].allocated, Quantity(1000));
  EXPECT_EQ(Q("dept-a").resources[kGpu].request, Quantity(9000));
  EXPECT_EQ(Q("a2").resources[kGpu].allocated_non_preemptible, Quantity(0));
  EXPECT_EQ(shares_.total()[kGpu], Quantity(16000));
}

TEST_F(FairShareTest, NonPreemptibleAllocationIsTrackedSeparately) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(8));
  objects_.priority_classes.push_back(testing::PriorityClass("inference", 125));
  objects_.queues.push_back(MakeQueue("q").Gpu(4, -1, 1));
  objects_.pods.push_back(
      MakePod("ns", "inf").Queue("q").Gpus(2).PriorityClass("inference").RunningOn("n1"));
  objects_.pods.push_back(MakePod("ns", "train").Queue("q").Gpus(1).RunningOn("n1"));
  Compute();
  EXPECT_EQ(Q("q").resources[kGpu].allocated, Quantity(3000));
  EXPECT_EQ(Q("q").resources[kGpu].allocated_non_preemptible, Quantity(2000));
}

TEST_F(FairShareTest, ForeignPodsAndUnusableNodesShrinkCapacity) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(8));
  objects_.nodes.push_back(MakeNode("down").Gpus(8).NotReady());
  objects_.pods.push_back(
      MakePod("kube", "other").Scheduler("default-scheduler").Gpus(3).RunningOn("n1"));
  objects_.queues.push_back(MakeQueue("a").Gpu(0, -1, 1));
  objects_.queues.push_back(MakeQueue("b").Gpu(0, -1, 1));
  PendingPods("a", 10, 1);
  PendingPods("b", 10, 1);
  Compute();
  // 8 - 3 = 5 GPUs: offered 2.5 each -> 2 each, leftover 1 to a (same age, name order).
  EXPECT_EQ(shares_.total()[kGpu], Quantity(5000));
  EXPECT_EQ(FairGpus("a"), Quantity(3000));
  EXPECT_EQ(FairGpus("b"), Quantity(2000));
}

TEST_F(FairShareTest, UnusableQueuesGetNoShareAndBrokenPodsAskForNone) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(4));
  objects_.queues.push_back(MakeQueue("good").Gpu(0, -1, 1));
  objects_.queues.push_back(MakeQueue("orphan").Parent("missing").Gpu(0, -1, 1));
  PendingPods("good", 2, 1);
  PendingPods("orphan", 2, 1);
  objects_.pods.push_back(MakePod("ns", "bad").Queue("good").Annotation("gpu-fraction", "abc"));
  Compute();
  EXPECT_FALSE(Q("orphan").usable);
  EXPECT_EQ(FairGpus("orphan"), Quantity(0));
  // good is the only usable top-level queue: it is offered all 4 GPUs and takes what it asks, 2.
  EXPECT_EQ(FairGpus("good"), Quantity(2000));
  EXPECT_EQ(Q("good").resources[kGpu].request, Quantity(2000));
}

TEST_F(FairShareTest, PriorityLevelsAtTheTop) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(8));
  objects_.queues.push_back(MakeQueue("vip").Priority(200).Gpu(0, -1, 1));
  objects_.queues.push_back(MakeQueue("vip2").Priority(200).Gpu(0, -1, 1));
  objects_.queues.push_back(MakeQueue("low").Gpu(0, -1, 1));
  PendingPods("vip", 3, 1);
  PendingPods("vip2", 1, 1);
  PendingPods("low", 8, 1);
  Compute();
  // Level 200: offered 4 each, vip takes 3, vip2 takes 1. Level 100: low takes the 4 left.
  EXPECT_EQ(FairGpus("vip"), Quantity(3000));
  EXPECT_EQ(FairGpus("vip2"), Quantity(1000));
  EXPECT_EQ(FairGpus("low"), Quantity(4000));
}

TEST_F(FairShareTest, CpuAndMemoryAreDividedInTheirOwnUnits) {
  objects_.nodes.push_back(MakeNode("n1").Gpus(0).Cpu("10").Memory("10G"));
  objects_.queues.push_back(MakeQueue("a").Cpu(2000, -1, 1).Memory(1000, -1, 1));
  objects_.queues.push_back(MakeQueue("b").Cpu(0, -1, 1).Memory(0, -1, 1));
  for (int i = 0; i < 3; ++i) {
    objects_.pods.push_back(
        MakePod("ns", "a" + std::to_string(i)).Queue("a").Cpu("3").Memory("3G"));
    objects_.pods.push_back(
        MakePod("ns", "b" + std::to_string(i)).Queue("b").Cpu("3").Memory("3G"));
  }
  Compute();
  // CPU 10000m: a deserved 2000m; 8000m left split evenly: 4000 each -> a 6000, b 4000.
  EXPECT_EQ(Q("a").resources[ShareResource::kCpu].fair_share, Quantity(6000));
  EXPECT_EQ(Q("b").resources[ShareResource::kCpu].fair_share, Quantity(4000));
  // Memory 10 GB: a deserved 1000 MB = 1 GB; 9 GB split evenly: 4.5 GB each.
  EXPECT_EQ(Q("a").resources[ShareResource::kMemory].fair_share, Quantity(5'500'000'000));
  EXPECT_EQ(Q("b").resources[ShareResource::kMemory].fair_share, Quantity(4'500'000'000));
}

}  // namespace
}  // namespace quotient::fairshare
