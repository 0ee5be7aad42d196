#include "experiments/fgd_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "experiments/fgd_replay.h"
#include "simulate/svg_format.h"

namespace quotient::experiments {
namespace {

using simulate::svg::Escape;

// Pixels; coordinates are computed in integers.
constexpr int64_t kWidth = 760;
constexpr int64_t kHeight = 440;
constexpr int64_t kLeft = 64;
constexpr int64_t kRight = 200;  // room for the legend
constexpr int64_t kTop = 40;
constexpr int64_t kBottom = 50;

// Ours in strong colours, the paper's in muted ones.
constexpr const char* kLineColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};
constexpr const char* kMarkerColours[] = {"#7f7f7f", "#bcbd22", "#17becf",
                                          "#8c564b", "#e377c2", "#000000"};

std::string Percent(int64_t centi) { return fmt::format("{}.{:02d}%", centi / 100, centi % 100); }

class Frame {
 public:
  Frame(int from, int64_t top_centi) : from_(from), top_(std::max<int64_t>(1, top_centi)) {}
  int64_t X(int arrived) const {
    return kLeft + (arrived - from_) * (kWidth - kLeft - kRight) / (kMaxArrivedPercent - from_);
  }
  int64_t Y(int64_t centi) const {
    return kHeight - kBottom - centi * (kHeight - kTop - kBottom) / top_;
  }

 private:
  int from_;
  int64_t top_;
};

}  // namespace

void WriteUnallocatedPlot(const std::string& title, const std::vector<PlotLine>& lines,
                          const std::vector<PlotMarkers>& markers, int from_percent,
                          std::ostream& out) {
  const int from = std::clamp(from_percent, 0, kMaxArrivedPercent - 10);
  int64_t highest = 0;
  for (const PlotLine& l : lines) {
    for (int a = from; a <= kMaxArrivedPercent && a < static_cast<int>(l.unallocated_centi.size());
         ++a) {
      highest = std::max(highest, l.unallocated_centi[static_cast<size_t>(a)]);
    }
  }
  for (const PlotMarkers& m : markers) {
    for (const auto& [a, v] : m.unallocated_centi) {
      if (a >= from) highest = std::max(highest, v);
    }
  }
  const int64_t top = (highest + 499) / 500 * 500;  // up to a multiple of 5%
  const Frame f(from, top);
  out << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\" font-weight=\"600\">{3}</text>\n",
      kWidth, kHeight, kLeft, Escape(title));
  // Grid and axes.
  for (int64_t v = 0; v <= top; v += 500) {
    const int64_t y = f.Y(v);
    out << fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#e5e7eb\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" fill=\"#4b5563\">{5}%</text>\n",
        kLeft, y, kWidth - kRight, kLeft - 6, y + 4, v / 100);
  }
  for (int a = (from + 9) / 10 * 10; a <= kMaxArrivedPercent; a += 10) {
    const int64_t x = f.X(a);
    out << fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#f3f4f6\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#4b5563\">{4}%</text>\n",
        x, kTop, kHeight - kBottom, kHeight - kBottom + 16, a);
  }
  out << fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" fill=\"#111827\">arrived GPU (% of the "
      "cluster's GPUs requested)</text>\n"
      "<text x=\"16\" y=\"{2}\" text-anchor=\"middle\" fill=\"#111827\" "
      "transform=\"rotate(-90 16 {2})\">unallocated GPU</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 12, (kTop + kHeight - kBottom) / 2);
  // Legend entries, one per series, down the right.
  int64_t legend_y = kTop + 8;
  const auto legend = [&](const std::string& swatch, const std::string& label) {
    out << fmt::format("{}<text x=\"{}\" y=\"{}\" fill=\"#111827\">{}</text>\n", swatch,
                       kWidth - kRight + 34, legend_y + 4, Escape(label));
    legend_y += 20;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const PlotLine& l = lines[i];
    const char* colour = kLineColours[i % std::size(kLineColours)];
    std::string points;
    for (int a = from; a <= kMaxArrivedPercent && a < static_cast<int>(l.unallocated_centi.size());
         ++a) {
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", f.X(a),
                            f.Y(l.unallocated_centi[static_cast<size_t>(a)]));
    }
    out << fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\">"
        "<title>{}</title></polyline>\n",
        points, colour, Escape(l.label));
    legend(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
                       "stroke-width=\"2.5\"/>",
                       kWidth - kRight + 10, legend_y, kWidth - kRight + 28, colour),
           l.label + " (ours)");
  }
  for (size_t i = 0; i < markers.size(); ++i) {
    const PlotMarkers& m = markers[i];
    const char* colour = kMarkerColours[i % std::size(kMarkerColours)];
    for (const auto& [a, v] : m.unallocated_centi) {
      if (a < from) continue;
      out << fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"><title>{} at {}%: {}</title></circle>\n",
          f.X(a), f.Y(v), colour, Escape(m.label), a, Percent(v));
    }
    legend(fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>", kWidth - kRight + 19,
                       legend_y, colour),
           m.label + " (paper)");
  }
  out << "</svg>\n";
}

}  // namespace quotient::experiments
