#include "kubeclient/work_queue.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kubeclient/clock.h"

namespace quotient::kubeclient {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// ---- Rate limiters

TEST(ItemExponentialBackoff, DoublesFromFiveMillisecondsPerItem) {
  ItemExponentialBackoff backoff(milliseconds(5), seconds(1000));
  EXPECT_EQ(backoff.When("a"), milliseconds(5));
  EXPECT_EQ(backoff.When("a"), milliseconds(10));
  EXPECT_EQ(backoff.When("a"), milliseconds(20));
  EXPECT_EQ(backoff.When("a"), milliseconds(40));
  EXPECT_EQ(backoff.NumRequeues("a"), 4);
  EXPECT_EQ(backoff.When("b"), milliseconds(5));  // failures are counted per item
  EXPECT_EQ(backoff.NumRequeues("b"), 1);
  EXPECT_EQ(backoff.NumRequeues("never-failed"), 0);
}

TEST(ItemExponentialBackoff, CapsAtTheMaximumWithoutOverflowing) {
  ItemExponentialBackoff backoff(milliseconds(5), seconds(1000));
  // 5 ms * 2^17 = 655.36 s is under the cap; 5 ms * 2^18 = 1310.72 s is over it.
  for (int i = 0; i < 17; ++i) backoff.When("a");
  EXPECT_EQ(backoff.When("a"), milliseconds(655'360));
  EXPECT_EQ(backoff.When("a"), seconds(1000));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(backoff.When("a"), seconds(1000)) << "failure " << i;
}

TEST(ItemExponentialBackoff, ForgetStartsTheItemOver) {
  ItemExponentialBackoff backoff(milliseconds(5), seconds(1000));
  backoff.When("a");
  backoff.When("a");
  backoff.When("b");
  backoff.Forget("a");
  EXPECT_EQ(backoff.NumRequeues("a"), 0);
  EXPECT_EQ(backoff.When("a"), milliseconds(5));
  EXPECT_EQ(backoff.When("b"), milliseconds(10));  // untouched by Forget("a")
}

TEST(MaxOfRateLimiter, TakesTheLongestDelayAndTellsEveryLimiter) {
  FakeClock clock;
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialBackoff>(milliseconds(5), seconds(1000)));
  limiters.push_back(std::make_unique<BucketRateLimiter>(TokenRate::PerSecond(10), 2, clock));
  MaxOfRateLimiter limiter(std::move(limiters));
  EXPECT_EQ(limiter.When("x"), milliseconds(5));    // bucket: token 1 of 2, free
  EXPECT_EQ(limiter.When("x"), milliseconds(10));   // bucket: token 2 of 2, free
  EXPECT_EQ(limiter.When("y"), milliseconds(100));  // bucket in debt by one 100 ms interval
  EXPECT_EQ(limiter.When("x"), milliseconds(200));  // bucket debt 200 ms beats backoff's 20 ms
  EXPECT_EQ(limiter.NumRequeues("x"), 3);           // the backoff's count; the bucket's is 0
  limiter.Forget("x");
  EXPECT_EQ(limiter.NumRequeues("x"), 0);
}

TEST(DefaultControllerRateLimiter, PerItemBackoffUntilTheOverallBucketRunsDry) {
  FakeClock clock;
  std::unique_ptr<RateLimiter> limiter = DefaultControllerRateLimiter(clock);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter->When("item-" + std::to_string(i)), milliseconds(5)) << i;
  }
  // The burst of 100 is spent; at 10 QPS the next retry of a fresh item waits 100 ms.
  EXPECT_EQ(limiter->When("item-100"), milliseconds(100));
  clock.Advance(seconds(20));  // refills the bucket to its burst
  for (int i = 0; i < 9; ++i) limiter->When("a");
  EXPECT_EQ(limiter->When("a"), milliseconds(2560));  // tenth failure: 5 ms * 2^9
}

// ---- WorkQueue: set semantics and order

TEST(WorkQueue, AddingAQueuedKeyAgainDoesNothing) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  EXPECT_EQ(queue.Len(), 2u);
  EXPECT_EQ(queue.Get(), "a");
  EXPECT_EQ(queue.Get(), "b");
  EXPECT_EQ(queue.Len(), 0u);
}

TEST(WorkQueue, ReadyKeysComeOutFirstInFirstOut) {
  FakeClock clock;
  WorkQueue queue(clock);
  for (const char* key : {"c", "a", "d", "b"}) queue.Add(key);
  std::vector<std::string> order;
  for (int i = 0; i < 4; ++i) order.push_back(*queue.Get());
  EXPECT_EQ(order, (std::vector<std::string>{"c", "a", "d", "b"}));
}

TEST(WorkQueue, KeyAddedWhileProcessingIsQueuedAgainAfterDone) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  queue.Add("b");
  ASSERT_EQ(queue.Get(), "a");
  queue.Add("a");
  queue.Add("a");
  EXPECT_EQ(queue.Len(), 1u);  // only b: a is still being processed
  queue.Done("a");
  EXPECT_EQ(queue.Len(), 2u);  // a once, behind b
  EXPECT_EQ(queue.Get(), "b");
  EXPECT_EQ(queue.Get(), "a");
}

TEST(WorkQueue, DoneWithoutANewAddLeavesTheKeyOut) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  ASSERT_EQ(queue.Get(), "a");
  queue.Done("a");
  EXPECT_EQ(queue.Len(), 0u);
  queue.Add("a");  // and it can be added again afterwards
  EXPECT_EQ(queue.Len(), 1u);
}

// ---- Delayed keys

TEST(WorkQueue, DelayedKeysBecomeReadyWhenTheClockPassesThem) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("a", milliseconds(10));
  queue.AddAfter("b", milliseconds(5));
  EXPECT_EQ(queue.Len(), 0u);
  clock.Advance(milliseconds(5));
  EXPECT_EQ(queue.Len(), 1u);
  clock.Advance(milliseconds(4));
  EXPECT_EQ(queue.Len(), 1u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(queue.Len(), 2u);
  EXPECT_EQ(queue.Get(), "b");  // due first
  EXPECT_EQ(queue.Get(), "a");
}

TEST(WorkQueue, KeysDueAtTheSameTimeKeepCallOrder) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("y", milliseconds(5));
  queue.AddAfter("x", milliseconds(5));
  clock.Advance(milliseconds(5));
  EXPECT_EQ(queue.Get(), "y");
  EXPECT_EQ(queue.Get(), "x");
}

TEST(WorkQueue, AKeyDelayedTwiceIsDueAtTheEarlierTimeOnce) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("a", milliseconds(10));
  queue.AddAfter("a", milliseconds(3));
  queue.AddAfter("b", milliseconds(3));
  queue.AddAfter("b", milliseconds(10));
  clock.Advance(milliseconds(3));
  EXPECT_EQ(queue.Len(), 2u);
  ASSERT_EQ(queue.Get(), "a");
  ASSERT_EQ(queue.Get(), "b");
  queue.Done("a");
  queue.Done("b");
  clock.Advance(milliseconds(20));
  EXPECT_EQ(queue.Len(), 0u);  // the later times were dropped, not kept as second entries
}

TEST(WorkQueue, ADueKeyIsQueuedBeforeAKeyAddedAfterItsTime) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("late", milliseconds(5));
  clock.Advance(milliseconds(5));
  queue.Add("now");
  EXPECT_EQ(queue.Get(), "late");
  EXPECT_EQ(queue.Get(), "now");
}

TEST(WorkQueue, AZeroDelayAddsAtOnce) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("a", nanoseconds(0));
  EXPECT_EQ(queue.Len(), 1u);
}

TEST(WorkQueue, BlockedGetWakesWhenTheClockReachesADelayedKey) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("a", milliseconds(10));
  std::atomic<bool> returned{false};
  std::optional<std::string> got;
  std::thread worker([&] {
    got = queue.Get();
    returned = true;
  });
  clock.BlockUntilWaiters(1);
  EXPECT_FALSE(returned);
  clock.Advance(milliseconds(9));
  EXPECT_FALSE(returned);  // not due yet
  clock.Advance(milliseconds(1));
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST(WorkQueue, BlockedGetWakesForAnEarlierDelayedKeyAddedMeanwhile) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddAfter("slow", seconds(60));
  std::optional<std::string> got;
  std::thread worker([&] { got = queue.Get(); });
  clock.BlockUntilWaiters(1);  // asleep until +60 s; Advance(1 ms) alone would not wake it
  queue.AddAfter("fast", milliseconds(1));  // so AddAfter must, to shorten the sleep
  clock.Advance(milliseconds(1));
  worker.join();
  EXPECT_EQ(got, "fast");
}

TEST(WorkQueue, BlockedGetWakesOnAddFromAnotherThread) {
  FakeClock clock;
  WorkQueue queue(clock);
  std::optional<std::string> got;
  std::thread worker([&] { got = queue.Get(); });
  clock.BlockUntilWaiters(1);
  queue.Add("a");
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST(WorkQueue, WithTheRealClockADelayedKeyArrivesWithoutHelp) {
  WorkQueue queue(RealClock::Instance());
  queue.AddAfter("a", milliseconds(1));
  EXPECT_EQ(queue.Get(), "a");  // no timing asserted: only that the sleeping Get wakes up
}

// ---- Rate-limited adds

TEST(WorkQueue, RateLimitedAddsWaitLongerAfterEachFailureUntilForgotten) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.AddRateLimited("a");
  clock.Advance(milliseconds(4));
  EXPECT_EQ(queue.Len(), 0u);
  clock.Advance(milliseconds(1));
  ASSERT_EQ(queue.Len(), 1u);  // first failure: 5 ms
  ASSERT_EQ(queue.Get(), "a");
  queue.AddRateLimited("a");  // while processing: delayed, then re-queued after Done
  queue.Done("a");
  clock.Advance(milliseconds(9));
  EXPECT_EQ(queue.Len(), 0u);
  clock.Advance(milliseconds(1));
  ASSERT_EQ(queue.Len(), 1u);  // second failure: 10 ms
  EXPECT_EQ(queue.NumRequeues("a"), 2);
  ASSERT_EQ(queue.Get(), "a");
  queue.Forget("a");
  queue.Done("a");
  EXPECT_EQ(queue.NumRequeues("a"), 0);
  queue.AddRateLimited("a");
  clock.Advance(milliseconds(5));
  EXPECT_EQ(queue.Len(), 1u);  // back to 5 ms
}

TEST(WorkQueue, UsesTheRateLimiterItIsGiven) {
  FakeClock clock;
  WorkQueue queue(clock, std::make_unique<ItemExponentialBackoff>(seconds(1), seconds(1)));
  queue.AddRateLimited("a");
  clock.Advance(milliseconds(999));
  EXPECT_EQ(queue.Len(), 0u);
  clock.Advance(milliseconds(1));
  EXPECT_EQ(queue.Len(), 1u);
}

// ---- Shutdown

TEST(WorkQueue, ShutDownWakesABlockedGetWithNothing) {
  FakeClock clock;
  WorkQueue queue(clock);
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = queue.Get(); });
  clock.BlockUntilWaiters(1);
  queue.ShutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
}

TEST(WorkQueue, AfterShutDownQueuedKeysAreHandedOutAndNewOnesIgnored) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  queue.AddAfter("delayed", milliseconds(1));
  queue.ShutDown();
  EXPECT_TRUE(queue.ShuttingDown());
  queue.Add("b");
  queue.AddAfter("c", milliseconds(1));
  queue.AddRateLimited("d");
  clock.Advance(milliseconds(10));
  EXPECT_EQ(queue.Len(), 1u);
  EXPECT_EQ(queue.Get(), "a");
  EXPECT_EQ(queue.Get(), std::nullopt);  // returns at once: "delayed" was dropped
  EXPECT_EQ(queue.NumRequeues("d"), 0);  // an ignored add records no failure
}

TEST(WorkQueue, ShutDownWithDrainWaitsForKeysBeingProcessed) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  ASSERT_EQ(queue.Get(), "a");
  std::atomic<bool> drained{false};
  std::thread closer([&] {
    queue.ShutDownWithDrain();
    drained = true;
  });
  while (!queue.ShuttingDown()) std::this_thread::yield();
  EXPECT_FALSE(drained);  // "a" is still being processed
  queue.Done("a");
  closer.join();
  EXPECT_TRUE(drained);
}

TEST(WorkQueue, ShutDownWithDrainReturnsAtOnceWhenNothingIsProcessing) {
  FakeClock clock;
  WorkQueue queue(clock);
  queue.Add("a");
  queue.ShutDownWithDrain();  // "a" is queued, not processing: no wait
  EXPECT_EQ(queue.Get(), "a");
}

// ---- Concurrency (meant for TSan)

TEST(WorkQueue, ConcurrentWorkersNeverProcessOneKeyTwiceAtOnce) {
  constexpr int kKeys = 16;
  constexpr int kWorkers = 4;
  constexpr int kRounds = 200;
  FakeClock clock;
  WorkQueue queue(clock);
  std::array<std::atomic<int>, kKeys> in_flight{};
  std::array<std::atomic<int>, kKeys> processed{};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (std::optional<std::string> key = queue.Get()) {
        const auto slot = static_cast<std::size_t>(std::stoi(*key));
        if (in_flight[slot].fetch_add(1) != 0) ++overlaps;
        std::this_thread::yield();
        in_flight[slot].fetch_sub(1);
        processed[slot].fetch_add(1);
        queue.Done(*key);
      }
    });
  }
  std::thread producer([&] {
    for (int round = 0; round < kRounds; ++round) {
      for (int k = 0; k < kKeys; ++k) queue.Add(std::to_string(k));
    }
  });
  producer.join();
  queue.ShutDownWithDrain();
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(overlaps, 0);
  for (int k = 0; k < kKeys; ++k) {
    // At least once (its adds coalesce), at most once per Add.
    EXPECT_GE(processed[static_cast<std::size_t>(k)], 1) << "key " << k;
    EXPECT_LE(processed[static_cast<std::size_t>(k)], kRounds) << "key " << k;
  }
  EXPECT_EQ(queue.Len(), 0u);
}

}  // namespace
}  // namespace quotient::kubeclient
