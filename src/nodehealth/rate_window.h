// Counter rates over fixed windows: is a cumulative counter growing faster than the policy
// allows, and for how many consecutive windows?
//
// A window opens at a poll and closes at the first poll at least window_seconds later. It is bad
// as soon as the counter grew by more than max_per_window since it opened (no need to wait for
// its end); a closed bad window adds to the run of consecutive bad windows, a closed good one
// ends the run. A counter that went backwards was reset (driver reload, perfquery -R): the run
// starts again. A gap of two windows without a poll cannot vouch for consecutiveness either.
#pragma once

#include <cstdint>

#include "nodehealth/health_state.h"
#include "nodehealth/policy.h"

namespace quotient::nodehealth {

struct WindowVerdict {
  int bad_windows = 0;       // the closed run plus the open window when it is bad
  bool newly_bad = false;    // the open window turned bad at this poll: worth one Event
  int64_t window_delta = 0;  // growth within the open window
};

// Updates `window` in place; `is_new`: the counter is seen for the first time (no baseline).
WindowVerdict UpdateWindow(CounterWindow* window, bool is_new, int64_t value, int64_t now_s,
                           const RateRule& rule);

}  // namespace quotient::nodehealth
