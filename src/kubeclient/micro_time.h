// metav1.MicroTime as the API writes it: RFC 3339 UTC with exactly six fractional digits
// ("2026-11-29T10:00:00.000000Z"), used by Lease and events.k8s.io Event timestamps.
#pragma once

#include <chrono>
#include <string>

namespace quotient::kubeclient {

std::string FormatMicroTime(std::chrono::system_clock::time_point t);

}  // namespace quotient::kubeclient
