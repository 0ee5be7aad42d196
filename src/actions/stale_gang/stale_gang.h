// The stalegangeviction action (KAI's, kai-reference §2.3, §4.4): a gang with pods holding
// resources but fewer than its minimum in some leaf subgroup, and no pod that succeeded, is
// stale. The first cycle that sees it records the time (PodGroup annotation
// kai.scheduler/stale-podgroup-timestamp); once it has been stale for the grace period — the
// configuration's defaultStalenessGracePeriod (default 60s), or the PodGroup's own
// quotient.dev/stale-grace-period annotation; negative = never — every pod it still runs is
// evicted. A gang that is no longer stale has the annotation removed.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class StaleGangEvictionAction final : public framework::Action {
 public:
  std::string_view name() const override { return "stalegangeviction"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
