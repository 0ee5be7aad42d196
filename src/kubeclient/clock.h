// Injected monotonic time for the client's timers: the token bucket, the work queue's delayed
// items and (later) backoff. Code under test never reads std::chrono directly, so a test drives
// time with FakeClock::Advance and asserts what became ready, never how long something took.
//
// Waiting goes through the clock too. WaitUntil blocks on the caller's condition variable until
// it is notified or the clock reaches a deadline; with RealClock that is cv.wait_until, with
// FakeClock it is a wait that only Advance (or a notify) ends. The condition variable is a
// std::condition_variable_any because FakeClock must release the caller's mutex and its own in
// one atomic step, so that an Advance between "deadline not reached" and "asleep" is never lost.
//
// Thread-safety: every method of both clocks may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <mutex>

namespace quotient::kubeclient {

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;

  virtual TimePoint Now() const = 0;

  // With `lock` held on entry, releases it and blocks until `cv` is notified or Now() reaches
  // `deadline` (TimePoint::max() means no deadline); holds `lock` again on return. Wakes may be
  // spurious: callers loop on their own condition.
  virtual void WaitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                         TimePoint deadline) const = 0;

  // Blocks the calling thread until Now() reaches `deadline`.
  virtual void SleepUntil(TimePoint deadline) const = 0;
};

// The steady clock of the process.
class RealClock final : public Clock {
 public:
  static const RealClock& Instance();

  TimePoint Now() const override;
  void WaitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) const override;
  void SleepUntil(TimePoint deadline) const override;

 private:
  RealClock() = default;
};

// Time that moves only when a test calls Advance. Advance wakes the threads blocked in WaitUntil
// or SleepUntil whose deadline it reaches, so a delayed item becomes ready, or a sleeper returns,
// exactly when the test moves time past its deadline.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint{}) : now_(start) {}

  TimePoint Now() const override;
  void WaitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) const override;
  void SleepUntil(TimePoint deadline) const override;

  // Moves time forward by `step` and wakes the waiters whose deadline that reaches. A negative
  // step is ignored: a steady clock never goes back.
  void Advance(std::chrono::nanoseconds step);

  // Threads blocked in WaitUntil or SleepUntil right now.
  std::size_t Waiters() const;
  // Blocks (without any timeout) until at least `count` threads are blocked in WaitUntil or
  // SleepUntil: how a test knows another thread has gone to sleep before it advances time.
  void BlockUntilWaiters(std::size_t count) const;

 private:
  mutable std::mutex mu_;
  TimePoint now_;
  // Threads inside WaitUntil (one entry per thread; several threads may share one variable).
  // Advance notifies, under mu_, those whose deadline it reached, as a real timer would fire;
  // each thread removes its own entry under mu_, so a pointer here is always alive.
  struct Waiting {
    std::condition_variable_any* cv;
    TimePoint deadline;
  };
  mutable std::list<Waiting> waiting_;
  mutable std::size_t sleepers_ = 0;            // threads inside SleepUntil
  mutable std::condition_variable sleep_cv_;    // wakes sleepers on Advance
  mutable std::condition_variable waiters_cv_;  // wakes BlockUntilWaiters when a thread blocks
};

}  // namespace quotient::kubeclient
