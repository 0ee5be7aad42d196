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
#include "core/time_text.h"

namespace quotient::kube {

using core::ParseGoDuration;
using core::ParseRfc3339;

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
