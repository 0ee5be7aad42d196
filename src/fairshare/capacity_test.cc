#include "fairshare/capacity.h"

#include <gtest/gtest.h>

namespace quotient::fairshare {
namespace {

constexpr ShareResource kGpu = ShareResource::kGpu;

ShareVector Gpus(int64_t milli) {
  ShareVector v;
  v[kGpu] = Quantity(milli);
  return v;
}

// dept (index 0) -> proj (index 1).
QueueShares Tree(Bound dept_limit, Bound proj_limit, Bound proj_deserved, int64_t proj_allocated,
                 int64_t proj_allocated_np) {
  QueueShare dept;
  dept.name = "dept";
  dept.children = {1};
  for (ShareResource r : core::kShareResources) {
    dept.resources[r].deserved = Bound::Unlimited();
    dept.resources[r].limit = Bound::Unlimited();
  }
  dept.resources[kGpu].limit = dept_limit;
  QueueShare proj;
  proj.name = "proj";
  proj.parent = 0;
  for (ShareResource r : core::kShareResources) {
    proj.resources[r].deserved = Bound::Unlimited();
    proj.resources[r].limit = Bound::Unlimited();
  }
  proj.resources[kGpu].limit = proj_limit;
  proj.resources[kGpu].deserved = proj_deserved;
  QueueShares shares({dept, proj}, ShareVector{});
  shares.AddAllocated(1, Gpus(proj_allocated - proj_allocated_np), true);
  shares.AddAllocated(1, Gpus(proj_allocated_np), false);
  return shares;
}

TEST(OverLimit, LimitIsHardForTheQueue) {
  QueueShares s = Tree(Bound::Unlimited(), Bound::Of(Quantity(4000)), Bound::Unlimited(), 3000, 0);
  EXPECT_TRUE(CheckOverLimit(s, 1, Gpus(1000)).fits);
  const CapacityVerdict v = CheckOverLimit(s, 1, Gpus(2000));
  EXPECT_FALSE(v.fits);
  EXPECT_EQ(v.reason, "OverLimit");
  EXPECT_EQ(v.message,
            "queue proj has reached its limit of gpu: limit is 4 GPUs, currently 3 GPUs allocated "
            "and the workload requests 2 GPUs");
}

TEST(OverLimit, AncestorLimitsApply) {
  QueueShares s = Tree(Bound::Of(Quantity(3500)), Bound::Unlimited(), Bound::Unlimited(), 3000, 0);
  const CapacityVerdict v = CheckOverLimit(s, 1, Gpus(1000));
  EXPECT_FALSE(v.fits);
  EXPECT_NE(v.message.find("queue dept"), std::string::npos);
  EXPECT_TRUE(CheckOverLimit(s, 1, Gpus(500)).fits);
}

TEST(OverLimit, ZeroLimitRejectsAnyRequestButNotAZeroOne) {
  QueueShares s = Tree(Bound::Unlimited(), Bound::Of(Quantity(0)), Bound::Unlimited(), 0, 0);
  EXPECT_FALSE(CheckOverLimit(s, 1, Gpus(1)).fits);
  EXPECT_TRUE(CheckOverLimit(s, 1, Gpus(0)).fits);  // CPU-only work is not limited by GPUs
}

TEST(NonPreemptibleOverQuota, OnlyNonPreemptibleWorkIsHeldToDeserved) {
  QueueShares s =
      Tree(Bound::Unlimited(), Bound::Unlimited(), Bound::Of(Quantity(2000)), 5000, 1000);
  // 1 GPU non-preemptible already; another 1 fits exactly, 2 do not.
  EXPECT_TRUE(CheckNonPreemptibleOverQuota(s, 1, Gpus(1000), false).fits);
  const CapacityVerdict v = CheckNonPreemptibleOverQuota(s, 1, Gpus(2000), false);
  EXPECT_FALSE(v.fits);
  EXPECT_EQ(v.reason, "NonPreemptibleOverQuota");
  EXPECT_NE(v.message.find("deserved gpu is 2 GPUs, 1 GPUs already allocated"), std::string::npos);
  // Preemptible work may go over quota (up to the limit).
  EXPECT_TRUE(CheckNonPreemptibleOverQuota(s, 1, Gpus(2000), true).fits);
}

TEST(NonPreemptibleOverQuota, UnlimitedQuotaNeverBlocks) {
  QueueShares s = Tree(Bound::Unlimited(), Bound::Unlimited(), Bound::Unlimited(), 9000, 9000);
  EXPECT_TRUE(CheckNonPreemptibleOverQuota(s, 1, Gpus(50000), false).fits);
}

TEST(JobOverQueueCapacity, ChecksTheLimitFirst) {
  QueueShares s = Tree(Bound::Unlimited(), Bound::Of(Quantity(1000)), Bound::Of(Quantity(0)), 0, 0);
  EXPECT_EQ(CheckJobOverQueueCapacity(s, 1, Gpus(2000), false).reason, "OverLimit");
  EXPECT_EQ(CheckJobOverQueueCapacity(s, 1, Gpus(1000), false).reason, "NonPreemptibleOverQuota");
  EXPECT_TRUE(CheckJobOverQueueCapacity(s, 1, Gpus(1000), true).fits);
}

}  // namespace
}  // namespace quotient::fairshare
