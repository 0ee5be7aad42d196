// The client-side throttle (client-go flowcontrol's token bucket, golang.org/x/time/rate): a
// bucket of `burst` tokens, refilled at one token per `TokenRate::per_token`, starting full.
// Every API request takes one token; the scheduler's client uses 50 QPS / burst 100, the work
// queue's overall limiter 10 QPS / burst 100.
//
// Quantities are integers. The bucket's level is kept in nanoseconds of refill time (one token =
// `per_token` ns), so refilling is a subtraction of two time points and nothing is rounded after
// construction. Reserve() may take the level below zero: the caller is told how long to wait,
// and later callers queue behind it (rate.Limiter.Reserve), which keeps the order fair.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

#include "kubeclient/clock.h"

namespace quotient::kubeclient {

// How fast tokens come back: one every `per_token`; zero means no limit at all.
struct TokenRate {
  std::chrono::nanoseconds per_token{0};

  // `qps` tokens a second; the interval is 1 s / qps rounded up, so the bucket never admits more
  // than `qps` a second. qps <= 0 means unlimited (as a negative QPS in client-go's config).
  static TokenRate PerSecond(int64_t qps);
  // One token every `interval` (rates below 1 QPS); interval <= 0 means unlimited.
  static TokenRate Every(std::chrono::nanoseconds interval);
  static TokenRate Unlimited() { return TokenRate{}; }

  bool unlimited() const { return per_token <= std::chrono::nanoseconds::zero(); }
};

class TokenBucket {
 public:
  // `burst` below 1 is taken as 1 (a bucket that can hold no token would refuse everything).
  TokenBucket(TokenRate rate, int burst, const Clock& clock);

  TokenBucket(const TokenBucket&) = delete;
  TokenBucket& operator=(const TokenBucket&) = delete;

  // Takes one token now and returns how long the caller must wait before acting on it: zero when
  // a token was in the bucket, otherwise the time until the debt it leaves is paid back.
  std::chrono::nanoseconds Reserve();
  // Takes a token only if one is available now, without going into debt.
  bool TryTake();
  // Reserve(), then sleep on the clock until the token is due.
  void Wait();

  // Whole tokens available now, rounded down (negative while in debt; `burst` when unlimited).
  // For tests and metrics.
  int64_t Tokens() const;

  TokenRate rate() const { return rate_; }
  int burst() const { return burst_; }

 private:
  // The level at `now`: level_ns_ plus the time since last_, capped at the capacity; mu_ held.
  int64_t LevelAtLocked(Clock::TimePoint now) const;
  // Takes a token at `now`; returns the wait until it is paid for. mu_ held.
  std::chrono::nanoseconds ReserveLocked(Clock::TimePoint now);

  const TokenRate rate_;
  const int burst_;
  const Clock& clock_;
  const int64_t capacity_ns_;  // burst_ * per_token, saturated at INT64_MAX

  mutable std::mutex mu_;
  int64_t level_ns_;  // tokens available at last_, in ns of refill time; < 0 is debt
  Clock::TimePoint last_;
};

}  // namespace quotient::kubeclient
