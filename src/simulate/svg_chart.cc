#include "simulate/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "simulate/svg_format.h"

namespace quotient::simulate::svg {
namespace {

constexpr int kFontPx = 11;
constexpr int64_t kLegendRow = Hundredths(18);
constexpr int64_t kSwatch = Hundredths(18);

// Calls f(start, end, value) for each stretch of positive length of the step function, clipped
// to [from, to).
template <typename F>
void ForEachStretch(const std::vector<TimePoint>& points, int64_t from, int64_t to, F f) {
  for (size_t i = 0; i < points.size(); ++i) {
    const int64_t start = std::max(points[i].time_s, from);
    const int64_t end = std::min(i + 1 < points.size() ? points[i + 1].time_s : to, to);
    if (end > start) f(start, end, points[i].value);
  }
}

// sum / count, rounded half away from zero.
int64_t RoundedDiv(int64_t sum, int64_t count) {
  return sum >= 0 ? (sum + count / 2) / count : -((-sum + count / 2) / count);
}

// The digits after the point that tick labels at `step` need.
int StepDecimals(int64_t step, int64_t unit) {
  const int most = DecimalsOf(unit);
  int64_t scaled = step;
  for (int d = 0; d < most; ++d, scaled *= 10) {
    if (scaled % unit == 0) return d;
  }
  return most;
}

const char* DashArray(Stroke s) {
  switch (s) {
    case Stroke::kDashed:
      return " stroke-dasharray=\"6 4\"";
    case Stroke::kDotted:
      return " stroke-dasharray=\"1.5 3\" stroke-linecap=\"round\"";
    case Stroke::kSolid:
      break;
  }
  return "";
}

// The plot area and its scales, in hundredths of a pixel.
struct Frame {
  int64_t width = 0, height = 0;
  int64_t left = 0, right = 0, top = 0, bottom = 0;  // the plot's edges
  int64_t end_s = 1;
  int64_t y_top = 1;  // the value at the top edge

  int64_t X(int64_t t) const { return left + (right - left) * t / end_s; }
  int64_t Y(int64_t v) const {
    const int64_t clamped = std::clamp<int64_t>(v, 0, y_top);
    return bottom - (bottom - top) * clamped / y_top;
  }
};

struct LegendItem {
  int64_t x = 0, y = 0;  // of the swatch's left end, on the text's middle line
};

// Lays the legend out in rows from the plot's left edge; returns each item's place and the rows.
std::vector<LegendItem> LayOutLegend(const std::vector<Series>& series, int64_t left, int64_t right,
                                     int64_t first_row_y, int64_t* rows) {
  std::vector<LegendItem> items;
  int64_t x = left;
  int64_t y = first_row_y;
  *rows = series.empty() ? 0 : 1;
  for (const Series& s : series) {
    const int64_t w = kSwatch + Hundredths(5) + TextWidth(s.name, kFontPx);
    if (x > left && x + w > right) {
      x = left;
      y += kLegendRow;
      ++*rows;
    }
    items.push_back({x, y});
    x += w + Hundredths(16);
  }
  return items;
}

// Runs of consecutive spans that have a value: [first, last] index pairs.
std::vector<std::pair<size_t, size_t>> DefinedRuns(const std::vector<Span>& spans) {
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].mean == kGap) continue;
    const bool joins =
        !runs.empty() && runs.back().second + 1 == i && spans[i - 1].end_s == spans[i].start_s;
    if (joins) {
      runs.back().second = i;
    } else {
      runs.emplace_back(i, i);
    }
  }
  return runs;
}

// The corners of a run of spans' line through `value` (mean, low or high): exact steps, each
// value held across its span; or, for time buckets, each bucket's value at its middle, joined
// by straight lines (a staircase of a few pixels a step would only draw the bucketing).
using Vertices = std::vector<std::pair<int64_t, int64_t>>;

template <typename Value>
Vertices Corners(const Frame& f, const std::vector<Span>& spans, size_t first, size_t last,
                 bool bucketed, Value value) {
  Vertices v;
  if (!bucketed) {
    for (size_t k = first; k <= last; ++k) {
      v.emplace_back(f.X(spans[k].start_s), f.Y(value(spans[k])));
      v.emplace_back(f.X(spans[k].end_s), f.Y(value(spans[k])));
    }
    return v;
  }
  v.emplace_back(f.X(spans[first].start_s), f.Y(value(spans[first])));
  for (size_t k = first; k <= last; ++k) {
    v.emplace_back(f.X((spans[k].start_s + spans[k].end_s) / 2), f.Y(value(spans[k])));
  }
  v.emplace_back(f.X(spans[last].end_s), f.Y(value(spans[last])));
  return v;
}

// "L" through the vertices, dropping those that repeat the previous one.
void LineTo(const Vertices& v, std::string& d) {
  std::pair<int64_t, int64_t> at{-1, -1};
  for (const auto& p : v) {
    if (p == at) continue;
    d += fmt::format("L{},{}", Px(p.first), Px(p.second));
    at = p;
  }
}

const auto kMean = [](const Span& s) { return s.mean; };

std::string LinePath(const Frame& f, const std::vector<Span>& spans, bool bucketed) {
  std::string d;
  for (const auto& [first, last] : DefinedRuns(spans)) {
    const Vertices v = Corners(f, spans, first, last, bucketed, kMean);
    d += fmt::format("M{},{}", Px(v.front().first), Px(v.front().second));
    LineTo(v, d);
  }
  return d;
}

std::string AreaPath(const Frame& f, const std::vector<Span>& spans, bool bucketed) {
  std::string d;
  for (const auto& [first, last] : DefinedRuns(spans)) {
    const Vertices v = Corners(f, spans, first, last, bucketed, kMean);
    d += fmt::format("M{},{}", Px(v.front().first), Px(f.bottom));
    LineTo(v, d);
    d += fmt::format("V{}Z", Px(f.bottom));
  }
  return d;
}

// The band between each bucket's lowest and highest sample, where they differ anywhere.
std::string RangePath(const Frame& f, const std::vector<Span>& spans, bool bucketed) {
  std::string d;
  for (const auto& [first, last] : DefinedRuns(spans)) {
    bool differs = false;
    for (size_t k = first; k <= last; ++k) differs = differs || spans[k].low != spans[k].high;
    if (!differs) continue;
    const Vertices high =
        Corners(f, spans, first, last, bucketed, [](const Span& s) { return s.high; });
    Vertices low = Corners(f, spans, first, last, bucketed, [](const Span& s) { return s.low; });
    std::reverse(low.begin(), low.end());
    d += fmt::format("M{},{}", Px(high.front().first), Px(high.front().second));
    LineTo(high, d);
    LineTo(low, d);
    d += "Z";
  }
  return d;
}

void WriteAxes(const Frame& f, const ValueAxis& axis, int64_t y_step, std::string& out) {
  const int decimals = StepDecimals(y_step, axis.unit);
  std::string grid;
  std::string labels;
  for (int64_t v = 0; v <= f.y_top; v += y_step) {
    const int64_t y = f.Y(v);
    if (v > 0) grid += fmt::format("M{},{}H{}", Px(f.left), Px(y), Px(f.right));
    labels += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>",
                          Px(f.left - Hundredths(6)), Px(y + Hundredths(4)),
                          Fixed(v, axis.unit, decimals), Escape(axis.suffix));
  }
  const int64_t max_ticks = std::max<int64_t>(2, (f.right - f.left) / Hundredths(90));
  const int64_t t_step = TimeTickStep(f.end_s, max_ticks);
  std::string ticks;
  for (int64_t t = 0; t <= f.end_s; t += t_step) {
    const int64_t x = f.X(t);
    const std::string text = t == 0 ? "0" : Duration(t);
    if (t > 0) grid += fmt::format("M{},{}V{}", Px(x), Px(f.top), Px(f.bottom));
    ticks += fmt::format("M{},{}v{}", Px(x), Px(f.bottom), Px(Hundredths(4)));
    const bool overflows = x + TextWidth(text, kFontPx) / 2 > f.width;
    labels += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>", Px(x),
                          Px(f.bottom + Hundredths(17)), overflows ? "end" : "middle", text);
  }
  out += fmt::format("<path d=\"{}\" stroke=\"#eceef1\" fill=\"none\"/>", grid);
  out += fmt::format("<path d=\"M{},{}H{}{}\" stroke=\"#9ca3af\" fill=\"none\"/>", Px(f.left),
                     Px(f.bottom), Px(f.right), ticks);
  out += fmt::format("<g font-size=\"{}\" fill=\"#6b7280\">{}</g>", kFontPx, labels);
}

void WriteSeries(const Frame& f, const std::vector<Series>& series,
                 const std::vector<std::vector<Span>>& spans, const std::vector<bool>& bucketed,
                 std::string& out) {
  // Shades first, lines on top of every shade.
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    if (s.fill) {
      out += fmt::format("<path d=\"{}\" fill=\"{}\" fill-opacity=\"0.18\"/>",
                         AreaPath(f, spans[i], bucketed[i]), s.color);
    }
    if (s.range) {
      const std::string d = RangePath(f, spans[i], bucketed[i]);
      if (!d.empty()) {
        out += fmt::format("<path d=\"{}\" fill=\"{}\" fill-opacity=\"0.22\"/>", d, s.color);
      }
    }
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    out += fmt::format(
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}><title>{}</title>"
        "</path>",
        LinePath(f, spans[i], bucketed[i]), s.color,
        s.wide   ? "3.5"
        : s.thin ? "1.25"
                 : "1.75",
        DashArray(s.stroke), Escape(s.name));
  }
}

void WriteLegend(const std::vector<Series>& series, const std::vector<LegendItem>& items,
                 std::string& out) {
  out += fmt::format("<g font-size=\"{}\" fill=\"#374151\">", kFontPx);
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const LegendItem& at = items[i];
    if (s.fill && s.stroke == Stroke::kSolid) {
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "fill-opacity=\"0.18\"/>",
          Px(at.x), Px(at.y - Hundredths(5)), Px(kSwatch), Px(Hundredths(10)), s.color);
    }
    out += fmt::format(
        "<path d=\"M{},{}h{}\" stroke=\"{}\" stroke-width=\"{}\"{}/><text x=\"{}\" y=\"{}\">{}"
        "</text>",
        Px(at.x), Px(at.y), Px(kSwatch), s.color,
        s.wide   ? "3.5"
        : s.thin ? "1.5"
                 : "2",
        DashArray(s.stroke), Px(at.x + kSwatch + Hundredths(5)), Px(at.y + Hundredths(4)),
        Escape(s.name));
  }
  out += "</g>";
}

// Transparent columns over the plot whose tooltips give each series' mean over that stretch.
void WriteHoverColumns(const Frame& f, const ChartSpec& spec, const std::vector<Series>& series,
                       std::string& out) {
  const auto columns = static_cast<size_t>(std::min<int64_t>(
      {static_cast<int64_t>(spec.hover_columns), (f.right - f.left) / Hundredths(8), f.end_s}));
  if (columns == 0) return;
  std::vector<std::vector<Span>> means;
  for (const Series& s : series) means.push_back(Buckets(s.points, 0, f.end_s, columns));
  const int decimals = std::min(DecimalsOf(spec.y.unit), 2);
  out += "<g class=\"hover\" fill=\"#111827\" fill-opacity=\"0\">";
  for (size_t c = 0; c < columns; ++c) {
    const int64_t start = f.end_s * static_cast<int64_t>(c) / static_cast<int64_t>(columns);
    const int64_t end = f.end_s * static_cast<int64_t>(c + 1) / static_cast<int64_t>(columns);
    std::string text = fmt::format("{} \u2013 {}", Duration(start), Duration(end));
    for (size_t i = 0; i < series.size(); ++i) {
      if (means[i].size() != columns) continue;
      const int64_t m = means[i][c].mean;
      text +=
          fmt::format("\n{}: {}", series[i].name,
                      m == kGap ? "\u2014" : Fixed(m, spec.y.unit, decimals) + spec.y.hover_unit);
    }
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
        Px(f.X(start)), Px(f.top), Px(f.X(end) - f.X(start)), Px(f.bottom - f.top), Escape(text));
  }
  out += "</g>";
}

}  // namespace

std::vector<Span> Buckets(const std::vector<TimePoint>& points, int64_t start_s, int64_t end_s,
                          size_t buckets) {
  std::vector<Span> out;
  if (end_s <= start_s || buckets == 0) return out;
  const int64_t length = end_s - start_s;
  const auto n = std::min(static_cast<int64_t>(buckets), length);  // at least 1 s each
  const auto boundary = [&](int64_t i) { return start_s + length * i / n; };
  struct Sums {
    int64_t weighted = 0;
    int64_t covered = 0;
    int64_t low = kGap;
    int64_t high = kGap;
  };
  std::vector<Sums> sums(static_cast<size_t>(n));
  int64_t b = 0;
  ForEachStretch(points, start_s, end_s, [&](int64_t s, int64_t e, int64_t v) {
    while (boundary(b + 1) <= s) ++b;
    if (v == kGap) return;
    for (int64_t k = b; k < n && boundary(k) < e; ++k) {
      const int64_t overlap = std::min(e, boundary(k + 1)) - std::max(s, boundary(k));
      if (overlap <= 0) continue;
      Sums& sum = sums[static_cast<size_t>(k)];
      sum.weighted += v * overlap;
      sum.covered += overlap;
      sum.low = sum.low == kGap ? v : std::min(sum.low, v);
      sum.high = sum.high == kGap ? v : std::max(sum.high, v);
    }
  });
  for (int64_t k = 0; k < n; ++k) {
    const Sums& sum = sums[static_cast<size_t>(k)];
    const int64_t mean = sum.covered > 0 ? RoundedDiv(sum.weighted, sum.covered) : kGap;
    out.push_back({boundary(k), boundary(k + 1), mean, sum.low, sum.high});
  }
  return out;
}

std::vector<Span> Downsample(const std::vector<TimePoint>& points, int64_t end_s, size_t max_spans,
                             bool* bucketed) {
  std::vector<Span> spans;
  if (bucketed != nullptr) *bucketed = false;
  if (points.empty()) return spans;
  const int64_t start = points.front().time_s;
  ForEachStretch(points, start, end_s, [&](int64_t s, int64_t e, int64_t v) {
    if (!spans.empty() && spans.back().end_s == s && spans.back().mean == v) {
      spans.back().end_s = e;
    } else {
      spans.push_back({s, e, v, v, v});
    }
  });
  if (spans.size() <= max_spans) return spans;
  if (bucketed != nullptr) *bucketed = true;
  return Buckets(points, start, end_s, max_spans);
}

int64_t TimeTickStep(int64_t end_s, int64_t max_ticks) {
  constexpr int64_t kMinute = 60, kHour = 3600, kDay = 86400;
  constexpr std::array<int64_t, 25> kSteps = {
      1,         2,           5,           10,           15,           30,
      kMinute,   2 * kMinute, 5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute,
      kHour,     2 * kHour,   3 * kHour,   6 * kHour,    12 * kHour,   kDay,
      2 * kDay,  7 * kDay,    14 * kDay,   28 * kDay,    56 * kDay,    91 * kDay,
      182 * kDay};
  const int64_t ticks = std::max<int64_t>(max_ticks, 1);
  for (const int64_t step : kSteps) {
    if (end_s / step <= ticks) return step;
  }
  int64_t step = kSteps.back();
  while (end_s / step > ticks) step *= 2;
  return step;
}

int64_t ValueTickStep(int64_t max, int64_t max_ticks, int64_t min_step) {
  const int64_t ticks = std::max<int64_t>(max_ticks, 1);
  for (int64_t power = 1;; power *= 10) {
    for (const int64_t m : {1, 2, 5}) {
      const int64_t step = m * power;
      if (step < min_step) continue;
      if ((max + step - 1) / step <= ticks) return step;
    }
  }
}

std::string StepChart(const ChartSpec& spec, const std::vector<Series>& series) {
  Frame f;
  f.width = Hundredths(spec.width_px);
  f.height = Hundredths(spec.height_px);
  f.end_s = std::max<int64_t>(spec.end_s, 1);

  std::vector<std::vector<Span>> spans;
  std::vector<bool> bucketed;
  int64_t data_max = 0;
  for (const Series& s : series) {
    bool b = false;
    spans.push_back(Downsample(s.points, f.end_s, spec.max_spans, &b));
    bucketed.push_back(b);
    for (const Span& span : spans.back()) {
      if (span.mean != kGap) data_max = std::max(data_max, s.range ? span.high : span.mean);
    }
  }
  const int64_t wanted = spec.y.max > 0 ? spec.y.max : std::max(data_max, spec.y.unit);
  const int64_t plot_height = f.height - Hundredths(40);
  const int64_t y_step =
      ValueTickStep(wanted, std::max<int64_t>(2, plot_height / Hundredths(40)), spec.y.min_step);
  f.y_top = (wanted + y_step - 1) / y_step * y_step;

  // The value labels' width sets the left margin.
  const int decimals = StepDecimals(y_step, spec.y.unit);
  const int64_t label_width =
      TextWidth(Fixed(f.y_top, spec.y.unit, decimals) + spec.y.suffix, kFontPx);
  f.left = std::max(Hundredths(30), label_width + Hundredths(12));
  f.right = f.width - Hundredths(14);
  // A lone series is named by the chart's caption: no legend.
  const bool legend = spec.legend && series.size() > 1;
  int64_t legend_rows = 0;
  const std::vector<LegendItem> items =
      legend ? LayOutLegend(series, f.left, f.right, Hundredths(12), &legend_rows)
             : std::vector<LegendItem>();
  f.top = Hundredths(10) + legend_rows * kLegendRow;
  f.bottom = f.height - Hundredths(24);

  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\"><title>{2}</title>",
      spec.width_px, spec.height_px, Escape(spec.label));
  WriteAxes(f, spec.y, y_step, out);
  WriteSeries(f, series, spans, bucketed, out);
  if (legend) WriteLegend(series, items, out);
  WriteHoverColumns(f, spec, series, out);
  out += "</svg>";
  return out;
}

}  // namespace quotient::simulate::svg
