// InfiniBand port readings from sysfs (../shared/docs/gpu-isolation-and-health.md section 2.3):
// <root>/class/infiniband/<dev>/ports/<n>/{state, phys_state, rate, link_layer,
// counters/link_downed, counters/symbol_error}. The root is a parameter ("/sys" on a node, a
// temporary tree in tests). Only reading happens here; what a reading means is evaluate.h's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "nodehealth/observations.h"

namespace quotient::nodehealth {

// Every port of every device, sorted by device then port, except ports whose link layer is not
// InfiniBand (RoCE ports are Ethernet) and devices named in `excluded_devices` (management NICs).
// No class/infiniband folder: no ports. A device or port that vanishes while being read is
// skipped (the evaluation reports it missing); an unreadable tree is an error.
Result<std::vector<IbPortReading>> ReadInfinibandPorts(
    const std::filesystem::path& sysfs_root, const std::vector<std::string>& excluded_devices);

// "400 Gb/sec (4X NDR)" -> 400000; "2.5 Gb/sec (1X SDR)" -> 2500 (Mb/s keeps it an integer).
std::optional<int64_t> ParseIbRateMbps(std::string_view text);

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}.
struct NumberedState {
  int number = 0;
  std::string name;
};
std::optional<NumberedState> ParseNumberedState(std::string_view text);

}  // namespace quotient::nodehealth
