#include "actions/registry.h"

#include <algorithm>

#include "actions/allocate/allocate.h"
#include "actions/consolidation/consolidation.h"
#include "actions/preempt/preempt.h"
#include "actions/reclaim/reclaim.h"
#include "actions/stale_gang/stale_gang.h"
#include "framework/config.h"

namespace quotient::actions {
namespace {}  // namespace

const std::vector<std::string>& KnownActionNames() {
  static const std::vector<std::string> kNames = framework::SchedulerConfig::DefaultActions();
  return kNames;
}

bool IsKnownAction(std::string_view name) {
  const auto& names = KnownActionNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsActionAvailable(std::string_view name) { return IsKnownAction(name); }

std::unique_ptr<framework::Action> MakeAction(std::string_view name) {
  if (!IsKnownAction(name)) return nullptr;
  if (name == "allocate") return std::make_unique<AllocateAction>();
  if (name == "consolidation") return std::make_unique<ConsolidationAction>();
  if (name == "reclaim") return std::make_unique<ReclaimAction>();
  if (name == "preempt") return std::make_unique<PreemptAction>();
  if (name == "stalegangeviction") return std::make_unique<StaleGangEvictionAction>();
  return nullptr;
}

}  // namespace quotient::actions
