// The actions by name: KAI's registered names, in the default order.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "framework/action.h"

namespace quotient::actions {

const std::vector<std::string>& KnownActionNames();
bool IsKnownAction(std::string_view name);

// Whether this version carries the action out. Known actions without an implementation are
// accepted and leave the cluster unchanged; `quotient schedule` says so on stderr.
bool IsActionAvailable(std::string_view name);

// The action for a known name (an inactive one when IsActionAvailable is false); nullptr for an
// unknown name.
std::unique_ptr<framework::Action> MakeAction(std::string_view name);

}  // namespace quotient::actions
