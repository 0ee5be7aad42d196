// metav1.MicroTime as the API writes it: RFC 3339 UTC with exactly six fractional digits
// ("2026-11-29T10:00:00.000000Z"), used by Lease and events.k8s.io Event timestamps.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace quotient::kubeclient {

std::string FormatMicroTime(std::chrono::system_clock::time_point t);
// Accepts any fractional precision (or none) and a Z or ±hh:mm offset.
std::optional<std::chrono::system_clock::time_point> ParseMicroTime(std::string_view text);

}  // namespace quotient::kubeclient
