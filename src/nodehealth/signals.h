// The names shared by the XID catalogue, the policy and the evaluation: the fault signals (the
// rows of the fault-to-action table, ../shared/docs/gpu-isolation-and-health.md section 2.6) and
// the actions of their remediation ladders.
//
// A signal is what was observed ("an NVLink is inactive", "XID 79"); the policy says, per signal,
// how it is confirmed, what it takes out of service and which ladder of actions repairs it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace quotient::nodehealth {

enum class Signal {
  kGpuLost,              // XID 79, NVML GPU_IS_LOST, fallen off the bus, GPU count mismatch
  kMemoryUncorrectable,  // XID 48 (DRAM) / 64 / 95 / 140, remap failure, uncorrectable ECC
  kHardwareRepair,       // XID 48 on SRAM, 54, 157: nothing but a repair helps
  kRemapPending,         // rows waiting for a reset to remap, retired pages pending, XID 156
  kGpuFatal,             // XID 46 / 62 / 109 / 119 / 120 / 143 / 158
  kRebootRequired,       // XID 110 / 151
  kNvlink,               // XID 74 / 136 / 144-150, an inactive NVLink, a fatal SXid
  kRecoveryAction,       // the driver's recovery-action hint (field 230, XID 154)
  kPcieWidth,            // PCIe link narrower than its maximum
  kPcieGen,              // PCIe generation below the maximum while busy
  kPcieReplay,           // PCIe replay counter rate
  kNvlinkReplay,         // NVLink DL replay counter rate
  kNvlinkRecovery,       // NVLink DL recovery counter rate
  kNvlinkCrc,            // NVLink DL CRC counter rate
  kIbPort,               // IB port not ACTIVE / not LinkUp / device missing
  kIbLinkDowned,         // IB link_downed counter increased
  kIbSymbolErrors,       // IB symbol_error rate (bit error rate)
  kIbRate,               // IB port rate below the node's expected rate
  kNicFatal,             // mlx5 fatal kernel-log lines
  kDriverUnresponsive,   // NVML failed to start or a call hung
  kXidUnknown,           // an XID the catalogue does not know
};

inline constexpr std::array<Signal, 21> kAllSignals = {
    Signal::kGpuLost,        Signal::kMemoryUncorrectable,
    Signal::kHardwareRepair, Signal::kRemapPending,
    Signal::kGpuFatal,       Signal::kRebootRequired,
    Signal::kNvlink,         Signal::kRecoveryAction,
    Signal::kPcieWidth,      Signal::kPcieGen,
    Signal::kPcieReplay,     Signal::kNvlinkReplay,
    Signal::kNvlinkRecovery, Signal::kNvlinkCrc,
    Signal::kIbPort,         Signal::kIbLinkDowned,
    Signal::kIbSymbolErrors, Signal::kIbRate,
    Signal::kNicFatal,       Signal::kDriverUnresponsive,
    Signal::kXidUnknown,
};

// The policy key: "gpu-lost", "memory-uncorrectable", ...
std::string_view SignalName(Signal signal);
std::optional<Signal> ParseSignal(std::string_view name);

// Signals judged on a counter's rate over windows rather than on one reading.
bool IsRateSignal(Signal signal);

// Ladder actions: none, restart-app, gpu-reset, drain-p2p, drain-and-reset, reboot, power-cycle,
// port-reset, driver-reload, escalate, and "stated" (the action the driver's hint states).
bool IsKnownAction(std::string_view action);

// How an action appears after "RecommendedAction:" in a condition message: "gpu-reset" is
// GPU_RESET.
std::string ActionLabel(std::string_view action);

}  // namespace quotient::nodehealth
