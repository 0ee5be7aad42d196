// The heart of `quotient node-agent`: one poll's observations, the state the previous poll left
// and the time, in; node conditions, raised faults, Events, per-GPU health and the next state,
// out. Pure: no I/O, no clock (now_s is passed in), deterministic for equal inputs.
//
// Rules (README.md has the full list):
//  1. Each observed fault is a signal (signals.h) about a subject (a GPU, an IB port, the node).
//     The policy's confirm rule raises it: immediately, after N consecutive polls, or after N
//     consecutive bad windows of a counter's rate.
//  2. A raised fault clears after policy.healthy_polls_to_clear consecutive healthy observations
//     of its subject. Faults from one-off events (XIDs, fallen off the bus, fatal SXids) are
//     sticky: only a passed validation (observation.validation_passed_at_s newer than the last)
//     or a reboot (state reset, state.h) clears them; a validation clears every fault.
//  3. A poll that cannot observe a subject (NVML down, a lost GPU, unreadable sysfs) is neither
//     healthy nor faulty: nothing clears, and a condition with nothing raised is Unknown, never
//     False.
//  4. A condition is True while any fault of its type is raised; its reason is the earliest
//     raised fault's, its message lists them all (at most kMaxListedFaults).
#pragma once

#include <cstdint>
#include <vector>

#include "nodehealth/condition.h"
#include "nodehealth/health_state.h"
#include "nodehealth/observations.h"
#include "nodehealth/policy.h"
#include "nodehealth/xid_catalog.h"

namespace quotient::nodehealth {

inline constexpr int kMaxListedFaults = 8;

struct Evaluation {
  std::vector<NodeCondition> conditions;  // all eight types, in kAllConditionTypes order
  std::vector<Fault> faults;              // raised faults, by type then subject then reason
  std::vector<HealthEvent> events;
  std::vector<GpuHealth> gpus;  // every GPU seen this boot, by index
  HealthState state;            // persist it, and pass it to the next poll
};

Evaluation Evaluate(const NodeObservation& observation, const HealthState& previous,
                    const Policy& policy, int64_t now_s,
                    const XidCatalog& catalog = DefaultXidCatalog());

}  // namespace quotient::nodehealth
