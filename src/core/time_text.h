// Timestamps and durations as Kubernetes and KAI write them: RFC 3339 timestamps
// (metadata.creationTimestamp, kai.scheduler/last-start-timestamp) and Go durations (a queue's
// preemptMinRuntime, the minruntime plugin's defaults). Exact, no floating point.
#pragma once

#include <chrono>
#include <string_view>

#include "common/status.h"
#include "core/objects.h"

namespace quotient::core {

// "2025-01-02T03:04:05Z", with optional fractional seconds (dropped) and a "+hh:mm"/"-hh:mm"
// offset instead of Z. The result is the UTC instant in whole seconds.
Result<Time> ParseRfc3339(std::string_view text);

// Writes `t` as "2025-01-02T03:04:05Z".
std::string FormatRfc3339(Time t);

// A Go duration as time.ParseDuration reads it: "45s", "10m", "1h30m", "1.5h", "300ms", "0",
// with an optional sign. Units ns, us (µs), ms, s, m, h. The result is truncated toward zero to
// whole seconds ("1500ms" -> 1s).
Result<std::chrono::seconds> ParseGoDuration(std::string_view text);
// The same to the nanosecond, as Go keeps it.
Result<std::chrono::nanoseconds> ParseGoDurationNanos(std::string_view text);

// Writes a whole-second duration as Go's time.Duration.String() does: "0s", "45s", "10m0s",
// "1h30m0s", "-5s".
std::string FormatGoDuration(std::chrono::seconds d);

}  // namespace quotient::core
