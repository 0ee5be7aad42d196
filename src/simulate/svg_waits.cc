#include "simulate/svg_waits.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "simulate/run_summary.h"
#include "simulate/svg_format.h"

namespace quotient::simulate::svg {
namespace {

constexpr std::array<int64_t, 11> kTicks = {0,     1,     10,     60,      600,     3600,
                                            21600, 86400, 604800, 2592000, 31536000};
constexpr int64_t kLabelWidth = Hundredths(170);
constexpr int64_t kTextWidth = Hundredths(300);
constexpr int64_t kTop = Hundredths(30);
constexpr int64_t kBottom = Hundredths(28);
constexpr int64_t kRow = Hundredths(20);
constexpr int64_t kHeader = Hundredths(20);  // a queue's name above its runs' rows
constexpr int64_t kBar = Hundredths(10);
constexpr int kFontPx = 11;

// The index of the last tick shown: the first at or past max_s, at least 1 minute.
size_t LastTick(int64_t max_s) {
  for (size_t i = 3; i < kTicks.size(); ++i) {
    if (kTicks[i] >= max_s) return i;
  }
  return kTicks.size() - 1;
}

std::string Wait(int64_t s) { return s == 0 ? "0s" : Duration(s); }

struct Layout {
  int64_t width = 0;
  int64_t left = kLabelWidth;
  int64_t right = 0;
  int64_t max_s = 0;
  int64_t X(int64_t seconds) const {
    return left + (right - left) * WaitAxisPosition(seconds, max_s) / 1000;
  }
};

void WriteLegend(const Layout& l, std::string& out) {
  struct Item {
    const char* text;
    const char* opacity;
  };
  constexpr std::array<Item, 3> kItems = {
      {{"half the pods (p50)", "1"}, {"to p95", "0.5"}, {"to p99", "0.22"}}};
  int64_t x = l.left;
  out += fmt::format("<g font-size=\"{}\" fill=\"#374151\">", kFontPx);
  for (const Item& item : kItems) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#64748b\" "
        "fill-opacity=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
        Px(x), Px(Hundredths(7)), Px(Hundredths(16)), Px(kBar), item.opacity,
        Px(x + Hundredths(21)), Px(Hundredths(16)), item.text);
    x += Hundredths(21) + TextWidth(item.text, kFontPx) + Hundredths(16);
  }
  out += fmt::format(
      "<path d=\"M{},{}h{}m0,-4v8\" stroke=\"#64748b\" stroke-width=\"1.5\"/>"
      "<text x=\"{}\" y=\"{}\">to the longest wait</text></g>",
      Px(x), Px(Hundredths(12)), Px(Hundredths(16)), Px(x + Hundredths(21)), Px(Hundredths(16)));
}

void WriteAxis(const Layout& l, int64_t bottom, std::string& out) {
  std::string grid;
  std::string labels;
  constexpr std::array<const char*, kTicks.size()> kNames = {"0",  "1s", "10s", "1m",  "10m", "1h",
                                                             "6h", "1d", "7d",  "30d", "365d"};
  for (size_t i = 0; i <= LastTick(l.max_s); ++i) {
    const int64_t x = l.X(kTicks[i]);
    grid += fmt::format("M{},{}V{}", Px(x), Px(kTop - Hundredths(4)), Px(bottom));
    labels += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", Px(x),
                          Px(bottom + Hundredths(16)), kNames[i]);
  }
  out += fmt::format("<path d=\"{}\" stroke=\"#eceef1\" fill=\"none\"/>", grid);
  out += fmt::format("<path d=\"M{},{}H{}\" stroke=\"#9ca3af\"/>", Px(l.left), Px(bottom),
                     Px(l.right));
  out += fmt::format("<g font-size=\"{}\" fill=\"#6b7280\">{}</g>", kFontPx, labels);
}

// One run's bars in the row whose top is `y`.
void WriteRow(const Layout& l, const std::string& queue, const WaitRow& row, int64_t y,
              std::string& out) {
  const int64_t mid = y + kRow / 2;
  const std::vector<int64_t> none;
  const std::vector<int64_t>& waits = row.waits ? *row.waits : none;
  const auto ran = static_cast<int64_t>(waits.size());
  std::string tooltip = fmt::format("{}{}: {} of {} pods started", queue,
                                    row.run.empty() ? "" : " (" + row.run + ")", ran, row.pods);
  std::string text;
  if (waits.empty()) {
    text = fmt::format("none of {} started", row.pods);
  } else {
    const int64_t p50 = Percentile(waits, 50), p95 = Percentile(waits, 95),
                  p99 = Percentile(waits, 99), max = waits.back();
    const int64_t bar_y = mid - kBar / 2;
    const auto bar = [&](int64_t from, int64_t to, const char* opacity) {
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>",
          Px(l.X(from)), Px(bar_y), Px(l.X(to) - l.X(from)), Px(kBar), row.color, opacity);
    };
    bar(p95, p99, "0.22");
    bar(p50, p95, "0.5");
    bar(0, p50, "1");
    out += fmt::format(
        "<path d=\"M{0},{1}H{2}M{2},{3}V{4}\" stroke=\"{5}\" stroke-width=\"1.5\" fill=\"none\"/>",
        Px(l.X(p99)), Px(mid), Px(l.X(max)), Px(mid - Hundredths(4)), Px(mid + Hundredths(4)),
        row.color);
    tooltip += fmt::format("\nwait p50 {}, p95 {}, p99 {}, longest {}", Wait(p50), Wait(p95),
                           Wait(p99), Wait(max));
    text = fmt::format("{}/{} \u00b7 p50 {} \u00b7 p95 {} \u00b7 max {}", ran, row.pods, Wait(p50),
                       Wait(p95), Wait(max));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#374151\">{}</text>",
                     Px(l.right + Hundredths(12)), Px(mid + Hundredths(4)), Escape(text));
  out += fmt::format(
      "<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill-opacity=\"0\"><title>{}</title>"
      "</rect>",
      Px(y), Px(l.width), Px(kRow), Escape(tooltip));
}

}  // namespace

int64_t WaitAxisPosition(int64_t seconds, int64_t max_s) {
  const size_t last = LastTick(max_s);
  const int64_t s = std::clamp<int64_t>(seconds, 0, kTicks[last]);
  size_t i = 0;
  while (i + 1 < last && kTicks[i + 1] <= s) ++i;
  // Millionths of the axis, then thousandths.
  const int64_t per_tick = 1'000'000 / static_cast<int64_t>(last);
  const int64_t within = (s - kTicks[i]) * per_tick / (kTicks[i + 1] - kTicks[i]);
  return (static_cast<int64_t>(i) * per_tick + within) / 1000;
}

std::string WaitChart(const std::vector<WaitGroup>& groups, int width_px) {
  Layout l;
  l.width = Hundredths(width_px);
  l.right = l.width - kTextWidth;
  bool compare = false;
  for (const WaitGroup& g : groups) {
    for (const WaitRow& r : g.rows) {
      if (r.waits && !r.waits->empty()) l.max_s = std::max(l.max_s, r.waits->back());
      compare = compare || !r.run.empty();
    }
  }
  int64_t height = kTop;
  for (const WaitGroup& g : groups) {
    height += (compare ? kHeader : 0) + kRow * static_cast<int64_t>(g.rows.size());
  }
  const int64_t bottom = height + Hundredths(4);
  height = bottom + kBottom;

  std::string out = fmt::format(
      "<svg class=\"chart waits\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-label=\"Wait from arrival to first start, per queue\">"
      "<title>Wait from arrival to first start, per queue</title>",
      width_px, Px(height));
  // Every other queue on a light band, so a queue's rows read as one.
  int64_t y = kTop;
  for (size_t g = 0; g < groups.size(); ++g) {
    const int64_t h = (compare ? kHeader : 0) + kRow * static_cast<int64_t>(groups[g].rows.size());
    if (g % 2 == 1) {
      out += fmt::format("<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f8fafc\"/>",
                         Px(y), Px(l.width), Px(h));
    }
    y += h;
  }
  WriteAxis(l, bottom, out);
  WriteLegend(l, out);
  y = kTop;
  out += fmt::format("<g font-size=\"{}\">", kFontPx);
  for (const WaitGroup& g : groups) {
    const std::string name = Escape(Ellipsize(g.queue, 26));
    if (compare) {
      out += fmt::format("<text x=\"4\" y=\"{}\" font-weight=\"600\" fill=\"#111827\">{}</text>",
                         Px(y + Hundredths(14)), name);
      y += kHeader;
    }
    for (const WaitRow& r : g.rows) {
      const std::string label = compare ? Escape(Ellipsize(r.run, 22)) : name;
      out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\"{}>{}</text>",
                         compare ? Px(Hundredths(16)) : "4", Px(y + kRow / 2 + Hundredths(4)),
                         compare ? "#4b5563" : "#111827", compare ? "" : " font-weight=\"600\"",
                         label);
      WriteRow(l, g.queue, r, y, out);
      y += kRow;
    }
  }
  out += "</g></svg>";
  return out;
}

}  // namespace quotient::simulate::svg
