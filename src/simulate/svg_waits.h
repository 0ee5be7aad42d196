// Wait-time distributions as inline SVG, for the HTML report (html_report.h): per queue, one row
// per run, a bar from zero to the median, lighter bars on to the 95th and 99th percentiles and a
// whisker to the longest wait, on a log-like time axis (0, 1 s, 10 s, 1 m, 10 m, 1 h, 6 h, 1 d,
// 7 d, 30 d: evenly spaced, linear between neighbours) so seconds and days read on one axis. The
// figures are printed beside each bar and in its tooltip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quotient::simulate::svg {

struct WaitRow {
  std::string run;                              // the run's label; empty for a single run
  std::string color;                            // CSS colour of the bars
  int64_t pods = 0;                             // of the queue in this run
  const std::vector<int64_t>* waits = nullptr;  // seconds, ascending: the pods that started
};

struct WaitGroup {
  std::string queue;  // as shown
  std::vector<WaitRow> rows;
};

// One <svg> element, `width_px` wide, as tall as its rows need.
std::string WaitChart(const std::vector<WaitGroup>& groups, int width_px);

// Where `seconds` falls on the log-like axis, in thousandths of its length, for an axis whose
// last tick covers `max_s`. Exposed for tests.
int64_t WaitAxisPosition(int64_t seconds, int64_t max_s);

}  // namespace quotient::simulate::svg
