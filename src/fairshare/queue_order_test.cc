#include "fairshare/queue_order.h"

#include <gtest/gtest.h>

namespace quotient::fairshare {
namespace {

constexpr ShareResource kGpu = ShareResource::kGpu;

// Queues with GPU settings only; CPU and memory zero everywhere unless set.
QueueShare MakeShare(std::string name, int64_t deserved, int64_t fair, int64_t allocated) {
  QueueShare q;
  q.name = std::move(name);
  for (ShareResource r : core::kShareResources) {
    q.resources[r].deserved = Bound::Of(Quantity(0));
    q.resources[r].limit = Bound::Unlimited();
  }
  q.resources[kGpu].deserved = Bound::Of(Quantity(deserved));
  q.resources[kGpu].fair_share = Quantity(fair);
  q.resources[kGpu].allocated = Quantity(allocated);
  return q;
}

ShareVector Gpus(int64_t milli) {
  ShareVector v;
  v[kGpu] = Quantity(milli);
  return v;
}

int Compare(const std::vector<QueueShare>& queues, int64_t l_job, int64_t r_job) {
  ShareVector total = Gpus(100000);
  QueueShares shares(queues, total);
  return CompareQueues(shares, {0, Gpus(l_job), {}}, {1, Gpus(r_job), {}});
}

TEST(QueueOrder, QueueOverItsFairShareInEveryResourceGoesLast) {
  QueueShare over = MakeShare("a", 0, 1000, 2000);
  for (ShareResource r : {ShareResource::kCpu, ShareResource::kMemory}) {
    over.resources[r].fair_share = Quantity(1);
    over.resources[r].allocated = Quantity(2);
  }
  QueueShare under = MakeShare("b", 0, 1000, 5000);  // over in GPU only: not over-utilized
  EXPECT_GT(Compare({over, under}, 0, 0), 0);
  EXPECT_LT(Compare({under, over}, 0, 0), 0);
}

TEST(QueueOrder, StarvedQueueComesFirst) {
  // a: allocated 1 + job 1 <= deserved 2 (starved). b: allocated 0 + job 3 > deserved 2.
  QueueShare a = MakeShare("a", 2000, 4000, 1000);
  QueueShare b = MakeShare("b", 2000, 4000, 0);
  EXPECT_LT(Compare({a, b}, 1000, 3000), 0);
}

TEST(QueueOrder, HigherPriorityBreaksTheTie) {
  QueueShare a = MakeShare("a", 0, 4000, 0);
  QueueShare b = MakeShare("b", 0, 4000, 0);
  b.priority = 150;
  EXPECT_GT(Compare({a, b}, 1000, 1000), 0);
}

TEST(QueueOrder, QueueUsingAResourceWithoutShareGoesLast) {
  // a has no allocatable GPU (deserved 0, fair 0) but would use one.
  QueueShare a = MakeShare("a", 0, 0, 0);
  QueueShare b = MakeShare("b", 0, 1000, 1000);
  EXPECT_GT(Compare({a, b}, 1000, 1000), 0);
}

TEST(QueueOrder, SmallerDominantShareWithTheJobFirst) {
  // a: (1 + 1) / 4 = 0.5; b: (1 + 2) / 4 = 0.75.
  QueueShare a = MakeShare("a", 0, 4000, 1000);
  QueueShare b = MakeShare("b", 0, 4000, 1000);
  EXPECT_LT(Compare({a, b}, 1000, 2000), 0);
  EXPECT_GT(Compare({a, b}, 2000, 1000), 0);
}

TEST(QueueOrder, AllocatableIsMaxOfDeservedAndFairShare) {
  // Both are starved with the job (1 + 1 <= 8 and 1 + 1 <= 2), so the dominant share decides:
  // a: 2 / max(8, 4) = 0.25; b: 2 / max(2, 4) = 0.5.
  QueueShare a = MakeShare("a", 8000, 4000, 1000);
  QueueShare b = MakeShare("b", 2000, 4000, 1000);
  EXPECT_LT(Compare({a, b}, 1000, 1000), 0);
}

TEST(QueueOrder, OlderQueueThenNameAsLastResort) {
  QueueShare a = MakeShare("a", 0, 4000, 0);
  QueueShare b = MakeShare("b", 0, 4000, 0);
  EXPECT_LT(Compare({a, b}, 1000, 1000), 0);  // same age: by name
  b.creation_time = core::Time(std::chrono::seconds(1));
  a.creation_time = core::Time(std::chrono::seconds(2));
  EXPECT_GT(Compare({a, b}, 1000, 1000), 0);
}

TEST(QueueOrder, SameQueueIsEqual) {
  QueueShares shares({MakeShare("a", 0, 0, 0)}, Gpus(1000));
  EXPECT_EQ(CompareQueues(shares, {0, {}, {}}, {0, {}, {}}), 0);
}

}  // namespace
}  // namespace quotient::fairshare
