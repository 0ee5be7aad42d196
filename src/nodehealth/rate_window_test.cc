// Counter rates over windows (rate_window.h), with a rule of "more than 10 per 100 s".
#include "nodehealth/rate_window.h"

#include <gtest/gtest.h>

namespace quotient::nodehealth {
namespace {

const RateRule kRule{100, 10};

TEST(NodeHealthRateWindowTest, TheFirstReadingIsOnlyABaseline) {
  CounterWindow w;
  const WindowVerdict v = UpdateWindow(&w, true, 5000, 0, kRule);
  EXPECT_EQ(v.bad_windows, 0);
  EXPECT_EQ(w.start_value, 5000);  // a large lifetime count is not a burst
}

TEST(NodeHealthRateWindowTest, AWindowTurnsBadAsSoonAsItsGrowthPassesTheLimit) {
  CounterWindow w;
  UpdateWindow(&w, true, 0, 0, kRule);
  EXPECT_EQ(UpdateWindow(&w, false, 10, 30, kRule).bad_windows, 0);  // 10 is not more than 10
  const WindowVerdict v = UpdateWindow(&w, false, 11, 60, kRule);
  EXPECT_EQ(v.bad_windows, 1);
  EXPECT_TRUE(v.newly_bad);
  EXPECT_EQ(v.window_delta, 11);
  const WindowVerdict again = UpdateWindow(&w, false, 12, 90, kRule);
  EXPECT_EQ(again.bad_windows, 1);
  EXPECT_FALSE(again.newly_bad);  // one Event per window
}

TEST(NodeHealthRateWindowTest, ConsecutiveBadWindowsAddUpAndACleanWindowEndsTheRun) {
  CounterWindow w;
  UpdateWindow(&w, true, 0, 0, kRule);
  EXPECT_EQ(UpdateWindow(&w, false, 20, 50, kRule).bad_windows, 1);   // window 1 bad
  EXPECT_EQ(UpdateWindow(&w, false, 40, 100, kRule).bad_windows, 2);  // window 2 opens, bad
  EXPECT_EQ(UpdateWindow(&w, false, 60, 200, kRule).bad_windows, 3);  // window 3 bad
  EXPECT_EQ(UpdateWindow(&w, false, 60, 300, kRule).bad_windows, 3);  // 4 open, not yet bad
  EXPECT_EQ(UpdateWindow(&w, false, 61, 400, kRule).bad_windows, 0);  // 4 closed clean
}

TEST(NodeHealthRateWindowTest, ACounterThatWentBackwardsStartsAfresh) {
  CounterWindow w;
  UpdateWindow(&w, true, 0, 0, kRule);
  UpdateWindow(&w, false, 50, 50, kRule);
  const WindowVerdict v = UpdateWindow(&w, false, 3, 60, kRule);  // cleared by a reset
  EXPECT_EQ(v.bad_windows, 0);
  EXPECT_EQ(w.start_value, 3);
}

TEST(NodeHealthRateWindowTest, ALongSilenceCannotVouchForConsecutiveWindows) {
  CounterWindow w;
  UpdateWindow(&w, true, 0, 0, kRule);
  EXPECT_EQ(UpdateWindow(&w, false, 50, 50, kRule).bad_windows, 1);
  // The agent was away for three windows: the earlier bad window does not chain.
  EXPECT_EQ(UpdateWindow(&w, false, 50, 400, kRule).bad_windows, 0);
}

}  // namespace
}  // namespace quotient::nodehealth
