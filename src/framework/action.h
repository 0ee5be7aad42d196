// Action: one step of a scheduling cycle (KAI's allocate, consolidation, reclaim, preempt,
// stalegangeviction), run in the configured order on the cycle's session.
#pragma once

#include <string_view>

#include "framework/session.h"

namespace quotient::framework {

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view name() const = 0;
  virtual void Execute(Session& session) = 0;
};

}  // namespace quotient::framework
