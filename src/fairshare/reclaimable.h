// Whether a reclaim scenario is fair (KAI's proportion reclaim rules, kai-reference §3.4).
//
// Gate (CanReclaimResources): the reclaimer's queue, with the job, stays within its fair share in
// every resource; a non-preemptible reclaimer also stays within deserved quota.
//
// Scenario (Reclaimable), on the queue state before the scenario:
//   1. For each victim queue, take the leveled pair: walking both queues' paths from the top, the
//      first two that differ (siblings under the lowest common ancestor). Each victim bundle (an
//      elastic pod alone, a job's core pods together) is allowed, judged before it is taken, if
//        - maintain fair share: the victim-side queue's remaining allocation is above its
//          allocatable share (max(deserved, fair share) capped by the limit) in some resource; or
//        - guarantee deserved quota: the reclaimer-side queue's allocation plus the request is
//          within its deserved quota in every resource, and the victim side's remaining
//          allocation is above its deserved quota in some resource;
//      then the bundle is taken from the victim queue and all its ancestors. (A victim whose
//      every pod moves to another node costs its queue nothing and is no bundle at all: KAI
//      leaves such victims out of the queues it checks; the caller leaves them out.) When no
//      bundle is left (every victim moves), the reclaimer's queue with the job must be within
//      its deserved quota in every resource: KAI approves such a scenario whatever the
//      reclaimer's standing, which lets an over-quota queue restart in-quota work (KAI #1565;
//      docs/kai-differences.md).
//   2. Saturation: at every level of the reclaimer's ancestry, against each sibling that lost
//      resources, for each resource involved (one the reclaimer requests, or one the sibling's
//      victims below it held): if the reclaimer-side queue would be
//      over its fair share (ratio (allocated + request) / fair share > 1) and the sibling has a
//      fair share, the reclaimer's ratio times the multiplier must stay below the sibling's
//      remaining ratio. Multiplier: plugin argument reclaimerUtilizationMultiplier (KAI's code
//      spells it relcaimerSaturationMultiplier; both are read), default 1, values below 1 read
//      as 1.
//   3. A non-preemptible reclaimer keeps allocated non-preemptible + request within deserved at
//      every level.
#pragma once

#include <vector>

#include "fairshare/queue_shares.h"

namespace quotient::fairshare {

struct ReclaimerInfo {
  Index queue = core::kNone;
  ShareVector request;
  bool preemptible = true;
};

struct VictimBundle {
  Index queue = core::kNone;  // the victim job's queue
  ShareVector resources;
};

bool CanReclaimResources(const QueueShares& shares, const ReclaimerInfo& reclaimer);

// KAI's reclaim victim filter (FilterVictim in filter_victims.go), for the jobs of `victim_queue`
// before any scenario: at the leveled pair, when the reclaimer's side with the job stays within
// its deserved quota, the victim side must be above its deserved quota in a resource the
// reclaimer asks for (or at it in every such resource); otherwise the victim side must be above
// its allocatable share (maintain fair share).
bool CanBeReclaimedFrom(const QueueShares& shares, const ReclaimerInfo& reclaimer,
                        Index victim_queue);

bool Reclaimable(const QueueShares& shares, const ReclaimerInfo& reclaimer,
                 const std::vector<VictimBundle>& bundles, int64_t multiplier_milli);

// The two queues where the paths of `reclaimer` and `victim` split (see above).
std::pair<Index, Index> LeveledQueues(const QueueShares& shares, Index reclaimer, Index victim);

}  // namespace quotient::fairshare
