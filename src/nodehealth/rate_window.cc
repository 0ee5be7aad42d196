#include "nodehealth/rate_window.h"

namespace quotient::nodehealth {

WindowVerdict UpdateWindow(CounterWindow* window, bool is_new, int64_t value, int64_t now_s,
                           const RateRule& rule) {
  CounterWindow& w = *window;
  if (is_new || value < w.last_value) {
    w = CounterWindow{now_s, value, value, 0, false};
    return WindowVerdict{};
  }
  const int64_t elapsed = now_s - w.window_start_s;
  if (elapsed >= rule.window_seconds) {
    const bool contiguous = elapsed < 2 * rule.window_seconds;
    w.bad_windows = w.current_bad && contiguous ? w.bad_windows + 1 : 0;
    // What arrived since the last poll counts in the new window: nothing is lost between them.
    w.window_start_s = now_s;
    w.start_value = w.last_value;
    w.current_bad = false;
  }
  const int64_t delta = value - w.start_value;
  const bool was_bad = w.current_bad;
  w.current_bad = delta > rule.max_per_window;
  w.last_value = value;
  return WindowVerdict{w.bad_windows + (w.current_bad ? 1 : 0), w.current_bad && !was_bad, delta};
}

}  // namespace quotient::nodehealth
