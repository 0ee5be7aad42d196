// Token bucket arithmetic in int64 nanoseconds, with 128-bit intermediates where a sum or product
// of two int64 values could overflow.
#include "kubeclient/token_bucket.h"

#include <algorithm>
#include <limits>

#include "common/int128.h"

namespace quotient::kubeclient {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

int64_t Saturate(Int128 value) {
  const Int128 max = std::numeric_limits<int64_t>::max();
  const Int128 min = std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(std::clamp(value, min, max));
}

// Floor division for a positive divisor (C++ `/` truncates toward zero).
int64_t FloorDiv(int64_t value, int64_t divisor) {
  const int64_t quotient = value / divisor;
  return (value % divisor < 0) ? quotient - 1 : quotient;
}

}  // namespace

TokenRate TokenRate::PerSecond(int64_t qps) {
  if (qps <= 0) return Unlimited();
  return Every(std::chrono::nanoseconds((kNanosPerSecond + qps - 1) / qps));
}

TokenRate TokenRate::Every(std::chrono::nanoseconds interval) {
  if (interval <= std::chrono::nanoseconds::zero()) return Unlimited();
  return TokenRate{interval};
}

TokenBucket::TokenBucket(TokenRate rate, int burst, const Clock& clock)
    : rate_(rate),
      burst_(std::max(burst, 1)),
      clock_(clock),
      capacity_ns_(Saturate(Int128{burst_} * rate_.per_token.count())),
      level_ns_(capacity_ns_),
      last_(clock.Now()) {}

int64_t TokenBucket::LevelAtLocked(Clock::TimePoint now) const {
  const int64_t elapsed_ns = std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count());
  return std::min(capacity_ns_, Saturate(Int128{level_ns_} + elapsed_ns));
}

std::chrono::nanoseconds TokenBucket::ReserveLocked(Clock::TimePoint now) {
  level_ns_ = Saturate(Int128{LevelAtLocked(now)} - rate_.per_token.count());
  last_ = now;
  return std::chrono::nanoseconds(level_ns_ >= 0 ? 0 : -level_ns_);
}

std::chrono::nanoseconds TokenBucket::Reserve() {
  if (rate_.unlimited()) return std::chrono::nanoseconds::zero();
  std::lock_guard<std::mutex> guard(mu_);
  return ReserveLocked(clock_.Now());
}

bool TokenBucket::TryTake() {
  if (rate_.unlimited()) return true;
  std::lock_guard<std::mutex> guard(mu_);
  const Clock::TimePoint now = clock_.Now();
  const int64_t level = LevelAtLocked(now);
  if (level < rate_.per_token.count()) return false;
  level_ns_ = level - rate_.per_token.count();
  last_ = now;
  return true;
}

void TokenBucket::Wait() {
  if (rate_.unlimited()) return;
  Clock::TimePoint due;
  {
    std::lock_guard<std::mutex> guard(mu_);
    const Clock::TimePoint now = clock_.Now();
    due = now + ReserveLocked(now);
  }
  clock_.SleepUntil(due);  // outside mu_: other callers reserve their turns meanwhile
}

int64_t TokenBucket::Tokens() const {
  if (rate_.unlimited()) return burst_;
  std::lock_guard<std::mutex> guard(mu_);
  return FloorDiv(LevelAtLocked(clock_.Now()), rate_.per_token.count());
}

}  // namespace quotient::kubeclient
