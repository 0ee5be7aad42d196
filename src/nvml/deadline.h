// Runs a call on a worker thread and waits for it up to a deadline. NVML calls can block for
// minutes, or for good, on a GPU that fell off the bus or a wedged driver (ioctls into the
// kernel module that never return); the node health agent must still report, so it runs each
// NVML read through a DeadlineRunner and turns "timed out" into GpuDriverUnresponsive.
//
// A call cannot be cancelled, only abandoned: its worker keeps running (inside NVML) until the
// call returns, and then ends; the runner starts a fresh worker for the next call. The cost of a
// hung call is one thread (its stack: 8 MiB of address space, little of it resident) and whatever
// the call holds. A wedged driver often holds NVML's own locks, so the next calls hang too: after
// max_stuck_workers abandoned workers the runner stops starting new ones and answers kSaturated
// at once, until one of them returns. So a dead driver costs at most that many threads.
//
// What the call uses must outlive it, even when abandoned: capture by value, and hold the Nvml
// by std::shared_ptr in the call (never destroy the last Nvml, which unloads libnvidia-ml.so.1,
// while a worker may still be inside it). The result travels in shared state, so an abandoned
// call writes nowhere it should not.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace quotient::nvml {

enum class DeadlineOutcome {
  kCompleted,  // the call returned in time; the value is there
  kTimedOut,   // the deadline passed first; the call was abandoned
  kSaturated,  // not started: max_stuck_workers abandoned calls have not returned yet
};

template <typename T>
struct Deadlined {
  DeadlineOutcome outcome = DeadlineOutcome::kTimedOut;
  std::optional<T> value;  // set when kCompleted
  bool completed() const { return outcome == DeadlineOutcome::kCompleted; }
};

class DeadlineRunner {
 public:
  struct Options {
    std::size_t max_stuck_workers = 4;
  };

  DeadlineRunner() : DeadlineRunner(Options{}) {}
  explicit DeadlineRunner(Options options);
  DeadlineRunner(const DeadlineRunner&) = delete;
  DeadlineRunner& operator=(const DeadlineRunner&) = delete;
  // Ends the idle worker. Abandoned ones are not waited for: they end when their call returns.
  ~DeadlineRunner();

  // Runs `call()` (copyable, returning a value) on the worker and waits up to `deadline`. One
  // thread at a time may use a runner; give each thread that makes NVML calls its own.
  template <typename Call>
  Deadlined<std::invoke_result_t<Call&>> Run(Call call, std::chrono::milliseconds deadline) {
    using T = std::invoke_result_t<Call&>;
    auto value = std::make_shared<std::optional<T>>();
    Deadlined<T> result;
    result.outcome =
        Execute([value, call = std::move(call)]() mutable { value->emplace(call()); }, deadline);
    if (result.completed()) result.value = std::move(*value);
    return result;
  }

  // Abandoned calls that have not returned yet.
  std::size_t stuck_workers() const;

 private:
  struct Worker;
  static void WorkerLoop(std::shared_ptr<Worker> worker,
                         std::shared_ptr<std::atomic<std::size_t>> stuck);
  DeadlineOutcome Execute(std::function<void()> task, std::chrono::milliseconds deadline);

  Options options_;
  std::shared_ptr<Worker> worker_;  // the idle or busy worker; null until first needed
  // Shared with abandoned workers, which decrement it when their call returns (possibly after
  // the runner is gone).
  std::shared_ptr<std::atomic<std::size_t>> stuck_;
};

}  // namespace quotient::nvml
