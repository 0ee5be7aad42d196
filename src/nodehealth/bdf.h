// PCI addresses in one form, so that a kernel-log line and an NVML reading name the same GPU.
//
// NVML writes "00000000:3B:00.0", the NVIDIA kernel module "PCI:0000:3b:00" (no function) and
// other drivers "0000:3b:00.0". All become "0000:3b:00": lowercase hex, the domain at least four
// digits, the function dropped (a GPU is function 0; the XID line never says).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace quotient::nodehealth {

// The normalised address, or nothing when `text` is not a PCI address.
std::optional<std::string> NormalizeBdf(std::string_view text);

}  // namespace quotient::nodehealth
