#include "kubeclient/token_bucket.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "kubeclient/clock.h"

namespace quotient::kubeclient {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// 10 QPS: one token every 100 ms.
constexpr int64_t kTenQps = 10;

TEST(TokenRate, PerSecondRoundsTheIntervalUpSoTheRateIsNeverExceeded) {
  EXPECT_EQ(TokenRate::PerSecond(50).per_token, milliseconds(20));
  EXPECT_EQ(TokenRate::PerSecond(3).per_token, nanoseconds(333'333'334));  // 1e9 / 3, rounded up
  EXPECT_EQ(TokenRate::Every(std::chrono::seconds(2)).per_token, std::chrono::seconds(2));
}

TEST(TokenRate, ZeroOrNegativeQpsMeansUnlimited) {
  EXPECT_TRUE(TokenRate::PerSecond(0).unlimited());
  EXPECT_TRUE(TokenRate::PerSecond(-1).unlimited());
  EXPECT_TRUE(TokenRate::Every(nanoseconds(0)).unlimited());
  EXPECT_TRUE(TokenRate::Unlimited().unlimited());
  EXPECT_FALSE(TokenRate::PerSecond(1).unlimited());
}

TEST(TokenBucket, StartsFullAndTryTakeStopsAtEmpty) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 3, clock);
  EXPECT_EQ(bucket.Tokens(), 3);
  EXPECT_TRUE(bucket.TryTake());
  EXPECT_TRUE(bucket.TryTake());
  EXPECT_TRUE(bucket.TryTake());
  EXPECT_FALSE(bucket.TryTake());  // empty, and TryTake never borrows
  EXPECT_EQ(bucket.Tokens(), 0);
}

TEST(TokenBucket, ReserveSpendsTheBurstThenQueuesCallersInDebt) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 2, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  // Each further caller waits one more interval than the one before it.
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
  EXPECT_EQ(bucket.Reserve(), milliseconds(200));
  EXPECT_EQ(bucket.Tokens(), -2);
  EXPECT_FALSE(bucket.TryTake());  // the debt is paid before anyone takes a token for free
}

TEST(TokenBucket, DebtIsPaidBackOverFakeTime) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 1, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));  // level: -1 token
  clock.Advance(milliseconds(60));
  EXPECT_EQ(bucket.Reserve(), milliseconds(140));  // -0.4 - 1 token = 140 ms of debt
  clock.Advance(milliseconds(140));
  EXPECT_EQ(bucket.Tokens(), 0);
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
}

TEST(TokenBucket, RefillsOneTokenPerIntervalUpToTheBurst) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 5, clock);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(bucket.TryTake());
  clock.Advance(milliseconds(99));
  EXPECT_FALSE(bucket.TryTake());
  clock.Advance(milliseconds(1));
  EXPECT_TRUE(bucket.TryTake());
  EXPECT_FALSE(bucket.TryTake());
  clock.Advance(std::chrono::seconds(60));  // 600 intervals, but the bucket holds 5
  EXPECT_EQ(bucket.Tokens(), 5);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(bucket.TryTake());
  EXPECT_FALSE(bucket.TryTake());
}

TEST(TokenBucket, SchedulerDefaultsAdmitOneHundredThenOneEveryTwentyMilliseconds) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(50), 100, clock);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bucket.Reserve(), nanoseconds(0)) << "request " << i;
  EXPECT_EQ(bucket.Reserve(), milliseconds(20));
}

TEST(TokenBucket, UnlimitedNeverWaitsOrRefuses) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(0), 1, clock);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(bucket.Reserve(), nanoseconds(0));
    ASSERT_TRUE(bucket.TryTake());
  }
  bucket.Wait();  // returns at once; with a finite rate this would block on the fake clock
  EXPECT_EQ(bucket.Tokens(), 1);
}

TEST(TokenBucket, BurstBelowOneHoldsOneToken) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 0, clock);
  EXPECT_EQ(bucket.burst(), 1);
  EXPECT_TRUE(bucket.TryTake());
  EXPECT_FALSE(bucket.TryTake());
}

TEST(TokenBucket, WaitSleepsOnTheClockUntilItsTokenIsDue) {
  FakeClock clock;
  TokenBucket bucket(TokenRate::PerSecond(kTenQps), 1, clock);
  ASSERT_TRUE(bucket.TryTake());
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    bucket.Wait();
    returned = true;
  });
  clock.BlockUntilWaiters(1);
  EXPECT_FALSE(returned);  // asleep: its token is due at +100 ms
  clock.Advance(milliseconds(99));
  EXPECT_FALSE(returned);  // woken by Advance, but 1 ms early, so asleep again
  clock.Advance(milliseconds(1));
  waiter.join();
  EXPECT_TRUE(returned);
  EXPECT_EQ(bucket.Tokens(), 0);
}

}  // namespace
}  // namespace quotient::kubeclient
