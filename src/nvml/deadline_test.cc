#include "nvml/deadline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "nvml/fake_nvml_fixture.h"
#include "nvml/gpu_health.h"

namespace quotient::nvml {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A call that blocks until the test releases it: a hung NVML call whose end the test decides.
struct Gate {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> finished{0};
};

// Waits (up to 5 s) until every abandoned call has returned and its worker ended, so that no
// worker outlives the test.
void ExpectWorkersDrain(const DeadlineRunner& runner) {
  const auto limit = Clock::now() + milliseconds(5000);
  while (runner.stuck_workers() > 0 && Clock::now() < limit) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(runner.stuck_workers(), 0u);
}

TEST(DeadlineRunnerTest, ReturnsTheValueOfACallThatEndsInTime) {
  DeadlineRunner runner;
  const Deadlined<int> result = runner.Run([] { return 42; }, milliseconds(1000));
  ASSERT_TRUE(result.completed());
  EXPECT_EQ(result.value, 42);
  EXPECT_EQ(runner.stuck_workers(), 0u);
}

TEST(DeadlineRunnerTest, AHungCallTimesOutAndTheNextRunsOnAFreshWorker) {
  DeadlineRunner runner;
  auto gate = std::make_shared<Gate>();
  const std::thread::id caller = std::this_thread::get_id();

  const auto start = Clock::now();
  const auto hung = runner.Run(
      [gate] {
        gate->released.wait();
        ++gate->finished;
        return std::this_thread::get_id();
      },
      milliseconds(100));
  const auto waited = Clock::now() - start;
  EXPECT_EQ(hung.outcome, DeadlineOutcome::kTimedOut);
  EXPECT_FALSE(hung.value);
  EXPECT_GE(waited, milliseconds(100));
  EXPECT_LT(waited, milliseconds(1000));
  EXPECT_EQ(runner.stuck_workers(), 1u);

  // The hung call still blocks its worker; the runner answers anyway, from a new one, which it
  // then keeps for the calls after.
  const auto next = runner.Run([] { return std::this_thread::get_id(); }, milliseconds(1000));
  ASSERT_TRUE(next.completed());
  EXPECT_NE(*next.value, caller);
  const auto after = runner.Run([] { return std::this_thread::get_id(); }, milliseconds(1000));
  ASSERT_TRUE(after.completed());
  EXPECT_EQ(*after.value, *next.value);
  EXPECT_EQ(gate->finished, 0);

  gate->release.set_value();
  ExpectWorkersDrain(runner);
  EXPECT_EQ(gate->finished, 1);  // the abandoned call ran to its end
}

TEST(DeadlineRunnerTest, StopsStartingWorkersWhenTooManyAreStuck) {
  DeadlineRunner runner(DeadlineRunner::Options{.max_stuck_workers = 2});
  auto gate = std::make_shared<Gate>();
  auto blocked = [gate] {
    gate->released.wait();
    return ++gate->finished;
  };
  EXPECT_EQ(runner.Run(blocked, milliseconds(50)).outcome, DeadlineOutcome::kTimedOut);
  EXPECT_EQ(runner.Run(blocked, milliseconds(50)).outcome, DeadlineOutcome::kTimedOut);
  EXPECT_EQ(runner.stuck_workers(), 2u);

  std::atomic<bool> ran{false};
  const auto start = Clock::now();
  const auto refused = runner.Run([&ran] { return ran = true; }, milliseconds(1000));
  EXPECT_EQ(refused.outcome, DeadlineOutcome::kSaturated);
  EXPECT_LT(Clock::now() - start, milliseconds(500));  // at once, not after the deadline
  EXPECT_FALSE(ran);

  gate->release.set_value();
  ExpectWorkersDrain(runner);
  EXPECT_EQ(gate->finished, 2);
  const auto again = runner.Run([] { return 7; }, milliseconds(1000));
  ASSERT_TRUE(again.completed());
  EXPECT_EQ(again.value, 7);
}

TEST(DeadlineRunnerTest, AnAbandonedCallOutlivesItsRunnerSafely) {
  auto gate = std::make_shared<Gate>();
  {
    DeadlineRunner runner;
    const auto hung = runner.Run(
        [gate] {
          gate->released.wait();
          return ++gate->finished;
        },
        milliseconds(50));
    EXPECT_EQ(hung.outcome, DeadlineOutcome::kTimedOut);
  }  // the runner is gone; its stuck worker is not
  gate->release.set_value();
  const auto limit = Clock::now() + milliseconds(5000);
  while (gate->finished == 0 && Clock::now() < limit) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(gate->finished, 1);
}

// The same with the fake NVML's hang injection: the call sleeps inside libnvidia-ml.so.1.
using DeadlineNvmlTest = FakeNvmlTest;

TEST_F(DeadlineNvmlTest, HungNvmlReadTimesOutAndTheRunnerReadsTheNextGpu) {
  WriteScenario(R"({"devices": [
    {"hang_ms": 400, "hang_calls": ["nvmlDeviceGetRemappedRows"]},
    {"uuid": "GPU-bbbbbbbb-0000-0000-0000-00000000000b", "recovery_action": 1}]})");
  auto loaded = Nvml::Load(kFakeNvml);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  // Shared with the calls: an abandoned one must find the library still loaded when it returns.
  std::shared_ptr<const Nvml> nvml = std::move(loaded).value();

  DeadlineRunner runner;
  const auto start = Clock::now();
  const auto hung = runner.Run([nvml] { return ReadGpuHealth(*nvml, 0); }, milliseconds(100));
  EXPECT_EQ(hung.outcome, DeadlineOutcome::kTimedOut);
  EXPECT_LT(Clock::now() - start, milliseconds(350));  // well before the 400 ms call returns

  const auto next = runner.Run([nvml] { return ReadGpuHealth(*nvml, 1); }, milliseconds(2000));
  ASSERT_TRUE(next.completed());
  EXPECT_EQ(next.value->uuid, "GPU-bbbbbbbb-0000-0000-0000-00000000000b");
  EXPECT_EQ(next.value->recovery_action, GpuRecoveryAction::kGpuReset);
  EXPECT_TRUE(next.value->errors.empty());

  // Slow is not broken: with a deadline past the hang, GPU 0 reads fine.
  const auto patient = runner.Run([nvml] { return ReadGpuHealth(*nvml, 0); }, milliseconds(3000));
  ASSERT_TRUE(patient.completed());
  EXPECT_TRUE(patient.value->remapped_rows);
  ExpectWorkersDrain(runner);
}

TEST_F(DeadlineNvmlTest, HungInitTimesOutLoad) {
  WriteScenario(R"({"init_hang_ms": 300, "devices": [{}]})");
  DeadlineRunner runner;
  const auto start = Clock::now();
  const auto load = runner.Run([] { return Nvml::Load(kFakeNvml); }, milliseconds(100));
  EXPECT_EQ(load.outcome, DeadlineOutcome::kTimedOut);
  EXPECT_LT(Clock::now() - start, milliseconds(250));
  // The abandoned Load finishes on its worker, which then drops (unloads) what it made.
  ExpectWorkersDrain(runner);
}

}  // namespace
}  // namespace quotient::nvml
