// Rate limiters and the work queue; see the header for the invariants.
#include "kubeclient/work_queue.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace quotient::kubeclient {

// ---- ItemExponentialBackoff

ItemExponentialBackoff::ItemExponentialBackoff(std::chrono::nanoseconds base,
                                               std::chrono::nanoseconds max)
    : base_(std::max(base, std::chrono::nanoseconds::zero())),
      max_(std::max(max, std::chrono::nanoseconds::zero())) {}

std::chrono::nanoseconds ItemExponentialBackoff::When(const std::string& item) {
  int exponent = 0;
  {
    std::lock_guard<std::mutex> guard(mu_);
    int& failures = failures_[item];
    exponent = failures;
    if (failures < std::numeric_limits<int>::max()) ++failures;
  }
  // base * 2^exponent <= max  <=>  base <= floor(max / 2^exponent), so test before shifting.
  if (exponent >= 63 || base_.count() > (max_.count() >> exponent)) return max_;
  return std::chrono::nanoseconds(base_.count() << exponent);
}

void ItemExponentialBackoff::Forget(const std::string& item) {
  std::lock_guard<std::mutex> guard(mu_);
  failures_.erase(item);
}

int ItemExponentialBackoff::NumRequeues(const std::string& item) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

// ---- BucketRateLimiter

std::chrono::nanoseconds BucketRateLimiter::When(const std::string& /*item*/) {
  return bucket_.Reserve();
}

void BucketRateLimiter::Forget(const std::string& /*item*/) {}

int BucketRateLimiter::NumRequeues(const std::string& /*item*/) const { return 0; }

// ---- MaxOfRateLimiter

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

std::chrono::nanoseconds MaxOfRateLimiter::When(const std::string& item) {
  std::chrono::nanoseconds longest = std::chrono::nanoseconds::zero();
  for (const auto& limiter : limiters_) longest = std::max(longest, limiter->When(item));
  return longest;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (const auto& limiter : limiters_) limiter->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) const {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->NumRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialBackoff>(std::chrono::milliseconds(5),
                                                              std::chrono::seconds(1000)));
  limiters.push_back(std::make_unique<BucketRateLimiter>(TokenRate::PerSecond(10), 100, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

// ---- WorkQueue

WorkQueue::WorkQueue(const Clock& clock) : WorkQueue(clock, DefaultControllerRateLimiter(clock)) {}

WorkQueue::WorkQueue(const Clock& clock, std::unique_ptr<RateLimiter> limiter)
    : clock_(clock), limiter_(std::move(limiter)) {}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.contains(key)) return;
  dirty_.insert(key);
  if (processing_.contains(key)) return;  // Done will queue it
  queue_.push_back(key);
  ready_cv_.notify_one();
}

void WorkQueue::PromoteDueLocked(Clock::TimePoint now) {
  while (!delayed_.empty() && std::get<0>(*delayed_.begin()) <= now) {
    auto node = delayed_.extract(delayed_.begin());
    std::string& key = std::get<2>(node.value());
    delayed_by_key_.erase(key);
    AddLocked(key);
  }
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> guard(mu_);
  PromoteDueLocked(clock_.Now());  // due keys were added first, so they keep their place
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard<std::mutex> guard(mu_);
  if (shutting_down_) return;
  const Clock::TimePoint now = clock_.Now();
  PromoteDueLocked(now);
  if (delay <= std::chrono::nanoseconds::zero()) {
    AddLocked(key);
    return;
  }
  const Clock::TimePoint ready_at = now + delay;
  auto existing = delayed_by_key_.find(key);
  if (existing != delayed_by_key_.end()) {
    if (std::get<0>(*existing->second) <= ready_at) return;  // already due sooner
    delayed_.erase(existing->second);
    delayed_by_key_.erase(existing);
  }
  auto [it, inserted] = delayed_.emplace(ready_at, next_seq_++, key);
  delayed_by_key_.emplace(key, it);
  // A blocked Get may be sleeping until a later deadline; let it recompute.
  if (it == delayed_.begin()) ready_cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (ShuttingDown()) return;  // don't count a failure the queue will never retry
  AddAfter(key, limiter_->When(key));
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    PromoteDueLocked(clock_.Now());
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    if (shutting_down_) return std::nullopt;
    const Clock::TimePoint deadline =
        delayed_.empty() ? Clock::TimePoint::max() : std::get<0>(*delayed_.begin());
    clock_.WaitUntil(ready_cv_, lock, deadline);
  }
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> guard(mu_);
  processing_.erase(key);
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    ready_cv_.notify_one();
  }
  if (processing_.empty()) drained_cv_.notify_all();
}

void WorkQueue::Forget(const std::string& key) { limiter_->Forget(key); }

int WorkQueue::NumRequeues(const std::string& key) const { return limiter_->NumRequeues(key); }

std::size_t WorkQueue::Len() {
  std::lock_guard<std::mutex> guard(mu_);
  PromoteDueLocked(clock_.Now());
  return queue_.size();
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> guard(mu_);
  shutting_down_ = true;
  delayed_.clear();
  delayed_by_key_.clear();
  ready_cv_.notify_all();
}

void WorkQueue::ShutDownWithDrain() {
  ShutDown();
  std::unique_lock<std::mutex> lock(mu_);
  drained_cv_.wait(lock, [&] { return processing_.empty(); });
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> guard(mu_);
  return shutting_down_;
}

}  // namespace quotient::kubeclient
