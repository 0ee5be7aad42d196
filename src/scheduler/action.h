// Action: one step of a scheduling cycle (KAI's allocate, consolidation, reclaim, preempt,
// stalegangeviction), run in the configured order on the cycle's session.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/session.h"

namespace quotient::scheduler {

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view name() const = 0;
  virtual void Execute(Session& session) = 0;
};

// KAI's registered action names, in the default order.
const std::vector<std::string>& KnownActionNames();
bool IsKnownAction(std::string_view name);

// Whether this version has an implementation of the action. Known actions without one are
// accepted and leave the cluster unchanged; `quotient schedule` says so on stderr.
bool IsActionAvailable(std::string_view name);

// The action for a known name (an inactive one when IsActionAvailable is false); nullptr for an
// unknown name.
std::unique_ptr<Action> MakeAction(std::string_view name);

}  // namespace quotient::scheduler
