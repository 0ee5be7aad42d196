// Step charts over simulated time as inline SVG, for the HTML report (html_report.h).
//
// A series is a step function: each sample's value holds until the next sample (as a cycle's
// sample describes the cluster until the next cycle), drawn as exact steps. A series with more
// stretches than a chart has room for is downsampled to equal time buckets, drawn as a line
// through each bucket's time-weighted mean at its middle, optionally with the range (lowest to
// highest sample) shaded behind it, so a run of 150,000 cycles draws a few hundred points. The
// chart has a time axis (seconds to days),
// a value axis on "nice" steps, an optional legend, and hover columns whose tooltips give every
// series' mean over that stretch of time.
//
// Values are fixed-point integers (milli-GPU, permille, counts) and coordinates integers in
// hundredths of a pixel: the same series give the same bytes.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace quotient::simulate::svg {

// A value meaning "undefined from here on" (Jain's index with no fair share): a gap in the line.
inline constexpr int64_t kGap = std::numeric_limits<int64_t>::min();

struct TimePoint {
  int64_t time_s = 0;
  int64_t value = 0;  // or kGap
};

// [start_s, end_s) drawn as one step: the time-weighted mean over it of the samples it stands
// for, and their lowest and highest values. mean == kGap when no sample there has a value.
struct Span {
  int64_t start_s = 0;
  int64_t end_s = 0;
  int64_t mean = 0;
  int64_t low = 0;
  int64_t high = 0;
};

// `buckets` equal stretches of [start_s, end_s) of the step function `points` (by time; of points
// at the same time the last holds; the last holds until end_s). Empty when end_s <= start_s.
std::vector<Span> Buckets(const std::vector<TimePoint>& points, int64_t start_s, int64_t end_s,
                          size_t buckets);

// The step function from its first point to end_s: one span per stretch of equal value when
// there are at most `max_spans` of them, else `max_spans` equal buckets (and *bucketed true).
std::vector<Span> Downsample(const std::vector<TimePoint>& points, int64_t end_s, size_t max_spans,
                             bool* bucketed = nullptr);

enum class Stroke { kSolid, kDashed, kDotted };

struct Series {
  std::string name;   // legend and tooltips
  std::string color;  // CSS colour
  Stroke stroke = Stroke::kSolid;
  bool fill = false;   // shade the area under the line
  bool range = false;  // shade the samples' range where downsampled
  bool thin = false;   // a secondary line
  std::vector<TimePoint> points;
  bool wide = false;  // under the others: where lines coincide, this one still shows
};

// How values read: `unit` raw values make one shown unit (1000 milli-GPU per GPU, 10 permille
// per percent, 1 pod per pod).
struct ValueAxis {
  int64_t unit = 1;
  std::string suffix;      // after tick labels: "%"
  std::string hover_unit;  // after values in tooltips: " GPUs", "%"
  int64_t max = 0;         // a fixed top; 0: from the data
  int64_t min_step = 1;    // the finest tick step, raw
};

struct ChartSpec {
  std::string label;  // what the chart shows: its accessible name and tooltip
  int width_px = 960;
  int height_px = 260;
  int64_t end_s = 0;  // the time axis runs from 0 to this (at least 1 s)
  ValueAxis y;
  bool legend = true;         // when there are two series or more
  size_t max_spans = 320;     // per series
  size_t hover_columns = 48;  // at most
};

// One <svg> element.
std::string StepChart(const ChartSpec& spec, const std::vector<Series>& series);

// Tick positions for a time axis over [0, end_s] with at most `max_ticks` intervals: a nice step
// (1, 2, 5, 10, 15, 30 s or min, 1, 2, 3, 6, 12 h, 1, 2, 7, 14 d, ...).
int64_t TimeTickStep(int64_t end_s, int64_t max_ticks);

// The smallest step of the form {1, 2, 5} x 10^k, at least `min_step`, that covers `max` in at
// most `max_ticks` steps.
int64_t ValueTickStep(int64_t max, int64_t max_ticks, int64_t min_step);

}  // namespace quotient::simulate::svg
