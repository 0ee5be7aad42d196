// RealClock forwards to std::chrono::steady_clock; FakeClock keeps its own time.
#include "kubeclient/clock.h"

#include <thread>

namespace quotient::kubeclient {

const RealClock& RealClock::Instance() {
  static const RealClock kClock;
  return kClock;
}

Clock::TimePoint RealClock::Now() const { return std::chrono::steady_clock::now(); }

void RealClock::WaitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                          TimePoint deadline) const {
  if (deadline == TimePoint::max()) {
    cv.wait(lock);  // wait_until(max) would overflow converting to the system's timespec
  } else {
    cv.wait_until(lock, deadline);
  }
}

void RealClock::SleepUntil(TimePoint deadline) const { std::this_thread::sleep_until(deadline); }

namespace {

// Both the caller's lock and the fake clock's, taken in that order and released together, so
// condition_variable_any::wait gives up both in one step (see the header).
class BothLocks {
 public:
  BothLocks(std::unique_lock<std::mutex>& caller, std::unique_lock<std::mutex>& clock)
      : caller_(caller), clock_(clock) {}
  void lock() {
    caller_.lock();
    clock_.lock();
  }
  void unlock() {
    clock_.unlock();
    caller_.unlock();
  }

 private:
  std::unique_lock<std::mutex>& caller_;
  std::unique_lock<std::mutex>& clock_;
};

}  // namespace

Clock::TimePoint FakeClock::Now() const {
  std::lock_guard<std::mutex> guard(mu_);
  return now_;
}

void FakeClock::WaitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                          TimePoint deadline) const {
  std::unique_lock<std::mutex> clock_lock(mu_);  // order: the caller's mutex, then mu_
  if (now_ >= deadline) return;
  auto entry = waiting_.insert(waiting_.end(), Waiting{&cv, deadline});
  waiters_cv_.notify_all();
  BothLocks both(lock, clock_lock);
  cv.wait(both);  // Advance notifies under mu_, which we hold until the wait has begun
  waiting_.erase(entry);
}

void FakeClock::SleepUntil(TimePoint deadline) const {
  std::unique_lock<std::mutex> lock(mu_);
  if (now_ >= deadline) return;
  ++sleepers_;
  waiters_cv_.notify_all();
  sleep_cv_.wait(lock, [&] { return now_ >= deadline; });
  --sleepers_;
}

void FakeClock::Advance(std::chrono::nanoseconds step) {
  if (step <= std::chrono::nanoseconds::zero()) return;
  std::lock_guard<std::mutex> guard(mu_);
  now_ += step;
  for (const Waiting& waiting : waiting_) {
    if (waiting.deadline <= now_) waiting.cv->notify_all();
  }
  sleep_cv_.notify_all();
}

std::size_t FakeClock::Waiters() const {
  std::lock_guard<std::mutex> guard(mu_);
  return waiting_.size() + sleepers_;
}

void FakeClock::BlockUntilWaiters(std::size_t count) const {
  std::unique_lock<std::mutex> lock(mu_);
  waiters_cv_.wait(lock, [&] { return waiting_.size() + sleepers_ >= count; });
}

}  // namespace quotient::kubeclient
