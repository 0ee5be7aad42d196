// The controllers' work queue (client-go util/workqueue): informer handlers enqueue object keys
// ("namespace/name"), worker threads take them, reconcile from the cache and report back:
//
//   while (auto key = queue.Get()) {
//     if (Reconcile(*key).ok()) queue.Forget(*key); else queue.AddRateLimited(*key);
//     queue.Done(*key);
//   }
//
// Invariants (as client-go's Type, delaying and rate-limiting queues):
//  1. A key is queued at most once: Add while it waits is a no-op (the `dirty` set).
//  2. A key is processed by at most one worker: Add while it is being processed (between Get and
//     Done) marks it dirty, and Done puts it back at the end of the queue.
//  3. Ready keys come out in FIFO order. Delayed keys (AddAfter) become ready when the clock
//     passes their time, earliest first (ties in call order); a key already waiting keeps the
//     earlier of its two times.
//  4. After ShutDown, adds are ignored and delayed keys are dropped; Get still hands out the keys
//     already queued, then returns nullopt.
//
// Delayed keys move into the queue lazily, whenever the queue is used (Get, Len, Add*), so there
// is no timer thread; a blocked Get sleeps on the clock until the earliest delayed key is due.
//
// The rate limiters (client-go TypedRateLimiter) decide AddRateLimited's delay. They are small
// classes so they can be tested and combined alone; the default is DefaultControllerRateLimiter.
//
// Thread-safety: WorkQueue and every rate limiter here may be used from any thread. The queue
// must outlive the threads that call it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kubeclient/clock.h"
#include "kubeclient/token_bucket.h"

namespace quotient::kubeclient {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // Records one more failure of `item` and returns how long to wait before retrying it.
  virtual std::chrono::nanoseconds When(const std::string& item) = 0;
  // The item succeeded: forget its failures.
  virtual void Forget(const std::string& item) = 0;
  // Failures recorded for `item` since it was last forgotten.
  virtual int NumRequeues(const std::string& item) const = 0;
};

// Per-item exponential backoff: the n-th failure since the last Forget waits base * 2^(n-1),
// capped at `max` (client-go ItemExponentialFailureRateLimiter).
class ItemExponentialBackoff final : public RateLimiter {
 public:
  ItemExponentialBackoff(std::chrono::nanoseconds base, std::chrono::nanoseconds max);

  std::chrono::nanoseconds When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  const std::chrono::nanoseconds base_;
  const std::chrono::nanoseconds max_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> failures_;
};

// One token bucket shared by all items: bounds the overall retry rate (client-go
// BucketRateLimiter). It keeps no per-item state, so Forget does nothing and NumRequeues is 0.
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(TokenRate rate, int burst, const Clock& clock) : bucket_(rate, burst, clock) {}

  std::chrono::nanoseconds When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  TokenBucket bucket_;
};

// The longest delay of several limiters; every limiter sees every call (client-go
// MaxOfRateLimiter). NumRequeues is the largest of theirs.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);

  std::chrono::nanoseconds When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  const std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// client-go DefaultControllerRateLimiter: max(per-item 5 ms * 2^n capped at 1000 s, overall token
// bucket 10 QPS / burst 100).
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(const Clock& clock);

class WorkQueue {
 public:
  // Uses DefaultControllerRateLimiter(clock).
  explicit WorkQueue(const Clock& clock);
  WorkQueue(const Clock& clock, std::unique_ptr<RateLimiter> limiter);

  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already queued; if it is being processed, queues it after Done.
  void Add(const std::string& key);
  // Adds `key` once `delay` has passed on the clock (now if delay <= 0).
  void AddAfter(const std::string& key, std::chrono::nanoseconds delay);
  // AddAfter with the delay the rate limiter gives for one more failure of `key`.
  void AddRateLimited(const std::string& key);

  // Blocks until a key is ready and returns it, now marked as being processed; nullopt once the
  // queue is shut down and holds no ready key.
  std::optional<std::string> Get();
  // The worker has finished `key`; if it was added meanwhile it goes back into the queue.
  void Done(const std::string& key);

  // Clears the rate limiter's failures for `key`.
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key) const;

  // Keys ready to be handed out (not those being processed or still delayed). Not const: due
  // delayed keys are moved into the queue first.
  std::size_t Len();

  // Ignores further adds, drops delayed keys and wakes every blocked Get.
  void ShutDown();
  // ShutDown, then waits until every key handed out by Get has been Done.
  void ShutDownWithDrain();
  bool ShuttingDown() const;

 private:
  // A delayed key: due at `ready_at`; `seq` orders keys due at the same time by call order.
  using Delayed = std::tuple<Clock::TimePoint, uint64_t, std::string>;

  void AddLocked(const std::string& key);
  // Moves every delayed key due at `now` into the queue; mu_ held.
  void PromoteDueLocked(Clock::TimePoint now);

  const Clock& clock_;
  const std::unique_ptr<RateLimiter> limiter_;

  mutable std::mutex mu_;
  std::condition_variable_any ready_cv_;   // a key became ready, a delay got earlier, or shutdown
  std::condition_variable drained_cv_;     // processing_ became empty
  std::deque<std::string> queue_;          // ready keys in order; each also in dirty_
  std::unordered_set<std::string> dirty_;  // keys that need processing (queued or pending Done)
  std::unordered_set<std::string> processing_;  // keys handed out by Get, not yet Done
  std::set<Delayed> delayed_;                   // earliest first
  std::unordered_map<std::string, std::set<Delayed>::iterator> delayed_by_key_;
  uint64_t next_seq_ = 0;
  bool shutting_down_ = false;
};

}  // namespace quotient::kubeclient
