// What a memory pool retains of its freed allocations (pool_charges.h), in-process.
#include "interposer/pool_charges.h"

#include <gtest/gtest.h>

namespace quotient::interposer {
namespace {

constexpr std::uint64_t kPool = 0x9000;

// An allocation of `bytes` from kPool on device 0; returns what the retained memory covered.
std::uint64_t allocate(PoolCharges& pools, std::uint64_t bytes) {
  const std::uint64_t covered = pools.take_cover(kPool, 0, bytes);
  pools.allocated(kPool, bytes);
  return covered;
}

TEST(PoolCharges, APoolWithoutAThresholdRetainsNothing) {
  PoolCharges pools;
  EXPECT_EQ(allocate(pools, 600), 0U);
  EXPECT_EQ(pools.freed(kPool, 600), 0U);
  EXPECT_EQ(pools.retained_bytes(), 0U);
}

TEST(PoolCharges, FreedMemoryIsRetainedUpToTheThresholdBesideWhatIsInUse) {
  PoolCharges pools;
  EXPECT_FALSE(pools.set_threshold(kPool, 1000));
  allocate(pools, 600);
  allocate(pools, 300);
  EXPECT_EQ(pools.freed(kPool, 600), 600U);  // 300 in use + 600 retained <= 1000
  EXPECT_EQ(pools.freed(kPool, 300), 300U);  // nothing in use: up to 1000 retained
  EXPECT_EQ(pools.retained_bytes(), 900U);
  EXPECT_EQ(allocate(pools, 1200), 900U);      // the retained 900 serve first
  EXPECT_EQ(pools.freed(kPool, 1200), 1000U);  // 1200 freed, 1000 fit under the threshold
  EXPECT_EQ(pools.retained_bytes(), 1000U);
}

TEST(PoolCharges, AFailedAllocationReturnsItsCover) {
  PoolCharges pools;
  EXPECT_FALSE(pools.set_threshold(kPool, 1000));
  allocate(pools, 500);
  pools.freed(kPool, 500);
  const std::uint64_t covered = pools.take_cover(kPool, 0, 800);
  EXPECT_EQ(covered, 500U);
  pools.return_cover(kPool, covered);
  EXPECT_EQ(pools.retained_bytes(), 500U);
}

TEST(PoolCharges, TrimLowerThresholdAndDestroyReleaseTheRetainedMemory) {
  PoolCharges pools;
  EXPECT_FALSE(pools.set_threshold(kPool, 1000));
  allocate(pools, 800);
  allocate(pools, 100);
  pools.freed(kPool, 800);
  ASSERT_EQ(pools.retained_bytes(), 800U);
  // Keep fewer than 500 reserved bytes: 100 in use, so 400 retained at most.
  const auto trimmed = pools.trim(kPool, 500);
  ASSERT_TRUE(trimmed);
  EXPECT_EQ(trimmed->bytes, 400U);
  EXPECT_EQ(trimmed->device, 0);
  const auto lowered = pools.set_threshold(kPool, 300);
  ASSERT_TRUE(lowered);
  EXPECT_EQ(lowered->bytes, 200U);  // room beside the 100 in use: 200
  const auto destroyed = pools.destroy(kPool);
  ASSERT_TRUE(destroyed);
  EXPECT_EQ(destroyed->bytes, 200U);
  EXPECT_EQ(pools.retained_bytes(), 0U);
  EXPECT_FALSE(pools.trim(kPool, 0));  // unknown pool: nothing to release
}

}  // namespace
}  // namespace quotient::interposer
