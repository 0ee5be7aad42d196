// Parsers for the text encodings Kubernetes and KAI objects use besides quantities: RFC 3339
// timestamps (metadata.creationTimestamp), Go durations (a queue's preemptMinRuntime) and plain
// decimal numbers (integer fields, KAI's float64 queue amounts). All are exact: no double.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "core/objects.h"
#include "core/quantity.h"

namespace quotient::kube {

// "2025-01-02T03:04:05Z", with optional fractional seconds (dropped) and a "+hh:mm"/"-hh:mm"
// offset instead of Z. The result is the UTC instant in whole seconds.
Result<core::Time> ParseRfc3339(std::string_view text);

// A Go duration as time.ParseDuration reads it: "45s", "10m", "1h30m", "1.5h", "300ms", "0",
// with an optional sign. Units ns, us (µs), ms, s, m, h. The result is truncated toward zero to
// whole seconds ("1500ms" -> 1s).
Result<std::chrono::seconds> ParseGoDuration(std::string_view text);

// A decimal integer ("42", "-7"; no fraction or exponent) within [min, max].
Result<int64_t> ParseDecimalInteger(std::string_view text, int64_t min, int64_t max);

// Whether `text` is a plain decimal number: an optional sign, digits with an optional fraction,
// and an optional decimal exponent ("2", "2.5", "-1", "1e3"). Rejects quantity suffixes, hex,
// .inf and .nan.
bool IsDecimalNumber(std::string_view text);

// A plain decimal number times 10^shift, as a count of 10^scale units, rounded by `rounding`.
// ("1.5", shift 6, kUnit) -> 1500000: the shift is applied to the decimal exponent, so the
// result is exact. Errors for anything IsDecimalNumber rejects and for values out of range.
Result<core::Quantity> ParseShiftedDecimal(std::string_view text, int shift, core::Scale scale,
                                           core::Rounding rounding);

}  // namespace quotient::kube
