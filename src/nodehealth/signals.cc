#include "nodehealth/signals.h"

#include <algorithm>

namespace quotient::nodehealth {
namespace {

constexpr std::array<std::string_view, kAllSignals.size()> kSignalNames = {
    "gpu-lost",         "memory-uncorrectable",
    "hardware-repair",  "remap-pending",
    "gpu-fatal",        "reboot-required",
    "nvlink",           "recovery-action",
    "pcie-width",       "pcie-gen",
    "pcie-replay",      "nvlink-replay",
    "nvlink-recovery",  "nvlink-crc",
    "ib-port",          "ib-link-downed",
    "ib-symbol-errors", "ib-rate",
    "nic-fatal",        "driver-unresponsive",
    "xid-unknown",
};

constexpr std::array<std::string_view, 11> kActions = {
    "none",        "restart-app", "gpu-reset",     "drain-p2p", "drain-and-reset", "reboot",
    "power-cycle", "port-reset",  "driver-reload", "escalate",  "stated",
};

}  // namespace

std::string_view SignalName(Signal signal) { return kSignalNames[static_cast<size_t>(signal)]; }

std::optional<Signal> ParseSignal(std::string_view name) {
  for (Signal signal : kAllSignals) {
    if (SignalName(signal) == name) return signal;
  }
  return std::nullopt;
}

bool IsRateSignal(Signal signal) {
  switch (signal) {
    case Signal::kPcieReplay:
    case Signal::kNvlinkReplay:
    case Signal::kNvlinkRecovery:
    case Signal::kNvlinkCrc:
    case Signal::kIbSymbolErrors:
      return true;
    default:
      return false;
  }
}

bool IsKnownAction(std::string_view action) {
  return std::find(kActions.begin(), kActions.end(), action) != kActions.end();
}

std::string ActionLabel(std::string_view action) {
  std::string label(action);
  for (char& c : label) {
    c = c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return label;
}

}  // namespace quotient::nodehealth
