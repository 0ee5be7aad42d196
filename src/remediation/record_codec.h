// The record as the controller persists it on the Node: annotation quotient.dev/remediation
// holds the JSON below, label quotient.dev/remediation-state the state alone (so `kubectl get
// nodes -L` and selectors see it). Times are RFC 3339 in whole seconds; empty fields are left
// out, missing ones read as their defaults, unknown ones are ignored (a newer controller's
// record still reads). README.md shows an example.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "remediation/record.h"

namespace quotient::remediation {

inline constexpr std::string_view kRecordAnnotation = "quotient.dev/remediation";
inline constexpr std::string_view kStateLabel = "quotient.dev/remediation-state";
// The opt-out: label quotient.dev/remediation=disabled (a label, the annotation's namesake).
inline constexpr std::string_view kOptOutLabel = "quotient.dev/remediation";
inline constexpr std::string_view kOptOutValue = "disabled";

std::string EncodeRecord(const NodeRecord& record);

// An error names the field at fault. A node without the annotation is Healthy: the controller
// passes a default NodeRecord rather than calling this.
Result<NodeRecord> DecodeRecord(std::string_view json);

}  // namespace quotient::remediation
