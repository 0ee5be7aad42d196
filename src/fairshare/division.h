// DivideAmongSiblings: KAI's fair-share division of one resource among one set of sibling queues
// (kai-reference §3.2; kai-subtleties §7–§9), in exact integer arithmetic.
//
// For a sibling set sharing amount T of resource r:
//   1. Deserved phase. Each queue gets min(deserved, requestable), where an unlimited deserved
//      reads as T and requestable = min(limit, request). If nothing remains, stop: over-committed
//      quotas are honoured up to request even beyond T. A negative quota or limit (other than -1)
//      gives a negative amount here, which KAI adds as it is (the remainder grows by as much).
//   2. Over-quota phase, one priority level at a time, highest first; a lower level only gets what
//      higher levels leave. Within a level, rounds: every unsatisfied queue (request above its
//      fair share and limit above it) with weight > 0 is offered
//         fair_i = amount_this_round x sw_i / sum(sw),  sw_i = max(0, w_i + k (w_i - u_i))
//      with w_i its weight divided by the sum of the weights of the queues with remaining
//      request (a negative weight counts in that sum as KAI counts it, so a lone -1 normalises
//      to 1), u_i its normalised usage and k the kValue. A queue whose remaining request fits in
//      fair_i takes all of it; otherwise it takes floor(fair_i) in whole units (1 GPU,
//      1 millicore, 1 byte) and the fractional rest is remembered. Another round runs while some
//      queue took less than offered and amount is left. A queue never gets more than its
//      remaining request this way, alone at its level or not.
//   3. Leftovers: level by level, the remembered remainders, largest first (ties: older queue,
//      then uid, then name), get one whole unit each (or what is left) until nothing remains.
// Queues are visited in name order; with exact arithmetic the order cannot change a result
// within a round because no round offers more than it has.
#pragma once

#include <vector>

#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

// Adds each sibling's fair share of `total` for resource `r` to its `fair_share`. `siblings`
// must be sorted by name. `k_value_milli` is kValue x 1000 (KAI default 1.0; values below 0 are
// treated as 0).
void DivideAmongSiblings(Quantity total, ShareResource r, const std::vector<QueueShare*>& siblings,
                         int64_t k_value_milli);

}  // namespace quotient::fairshare
