// What the scheduler reads of node health (issue 12): the fault conditions `quotient node-agent`
// sets, the GPUs it reports unhealthy, and the taints `quotient remediator` puts on a node it
// takes out. A node with a fault condition True that is not confined to some of its GPUs, or
// with one of those taints, is unusable whatever its pods tolerate; an unhealthy GPU is left out
// of placement and capacity while the rest of its node stays in use. Fair share is computed on what
// is left: a team does not lose its guarantee to broken hardware, and nobody is promised a share of
// it.
#pragma once

#include <array>
#include <string_view>

namespace quotient::core {

// Per-GPU health on the Node, written by the agent: JSON
//   {"unhealthy": [{"uuid": "GPU-...", "index": 2, "reason": "RowRemapPending,Xid79"}],
//    "confined": ["RowRemapPending"]}
// "unhealthy": the GPUs to leave out (a GPU's reasons joined with commas). "confined": the
// reasons of faults the agent's policy scopes to a GPU. Other fields ("bdf", an "unknown" list)
// are not read.
inline constexpr std::string_view kGpuHealthAnnotation = "quotient.dev/gpu-health";
// The remediator's taints (NoSchedule): a node in remediation, and one waiting for a person.
inline constexpr std::string_view kUnhealthyTaint = "quotient.dev/unhealthy";
inline constexpr std::string_view kHardwareRepairTaint = "quotient.dev/hardware-repair";
// On a pod the remediator evicted for a node fault, and on its PodGroup: plain text, "drained
// from node <node> for a fault (incident <id>) at <RFC 3339>". The scheduler quotes it in the
// PodGroup's pending reason until the group runs again, then removes it.
inline constexpr std::string_view kDrainedForFaultAnnotation = "quotient.dev/drained-for-fault";

// The agent's fault condition types (True = fault). A True one takes its node out of scheduling,
// unless its reason is one the agent lists as confined to GPUs (its policy decides each signal's
// scope: RowRemapPending is a GPU's, Xid79 the node's): then only the unhealthy GPUs are left
// out.
inline constexpr std::array<std::string_view, 8> kFaultConditions = {
    "GpuXidFatal",     "GpuLost",        "GpuMemoryDegraded",     "GpuNvlinkDegraded",
    "GpuPcieDegraded", "IbPortDegraded", "GpuDriverUnresponsive", "GpuRemediationRequired"};

inline bool IsFaultCondition(std::string_view type) {
  for (std::string_view t : kFaultConditions) {
    if (t == type) return true;
  }
  return false;
}

}  // namespace quotient::core
