// The remediator's decision for one reconcile (issue 12): from the fleet as it is now, the
// policy and the rails, to the plan the controller carries out. Pure and deterministic: no I/O,
// no clock (`now` is passed in), nodes handled in name order, waiting nodes served by when their
// incident opened then by name. Thread-compatible: it shares nothing between calls.
//
// Per node (README.md has the full table):
//   Healthy     -> Suspect      a fault condition covered by the policy is True (Unknown never
//                               counts); an already-confirmed fault goes on to Cordoned at once
//   Suspect     -> Healthy      the fault cleared
//   Suspect     -> Cordoned     confirmed (True for the class's confirm window) and the rails
//                               allow: breaker closed, no flap backoff, a slot in pool, domain
//                               and fleet; the recurrence budget reached -> Escalated instead
//   Cordoned    -> Draining
//   Draining    -> Remediating  no evictable pod left (DaemonSet and mirror pods stay); a timeout
//                               escalates (or force-deletes when configured)
//   Remediating -> Validating   a rung succeeded; a failure or timeout starts the next rung;
//                               the last one's -> Escalated
//   Validating  -> Healthy      the validation pod passed and no fault for the hold-down;
//                               otherwise -> Escalated
//   any taken-out state -> Cancelled when the node is opted out or a person uncordoned it.
#pragma once

#include "remediation/config.h"
#include "remediation/plan.h"
#include "remediation/view.h"

namespace quotient::remediation {

Plan Decide(const FleetView& fleet, const Config& config, Time now);

}  // namespace quotient::remediation
