#include "simulate/svg_occupancy.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace quotient::simulate::svg {
namespace {

// Clusters up to this many nodes get large, named blocks.
constexpr size_t kSmallCluster = 48;

struct Geometry {
  int64_t cell = 0;      // a GPU's square
  int64_t pitch = 0;     // cell and the gap after it
  int64_t max_cols = 0;  // cells per row in a block of up to 8 GPUs
  int64_t node_gap = 0;  // between blocks
  int64_t label = 0;     // height of the name under a block; 0: unnamed
};

Geometry GeometryFor(size_t nodes) {
  if (nodes <= kSmallCluster) {
    return {Hundredths(12), Hundredths(14), 8, Hundredths(12), Hundredths(15)};
  }
  return {Hundredths(7), Hundredths(8), 4, Hundredths(4), 0};
}

struct Block {
  int64_t cols = 1, rows = 1;
  int64_t width = 0, height = 0;  // of the cells (and the name) only
};

Block BlockFor(const Geometry& g, size_t gpus) {
  Block b;
  const auto n = std::max<int64_t>(static_cast<int64_t>(gpus), 1);
  b.cols = std::min(n, n <= 8 ? g.max_cols : 8);
  b.rows = (n + b.cols - 1) / b.cols;
  b.width = b.cols * g.pitch - (g.pitch - g.cell);
  b.height = b.rows * g.pitch - (g.pitch - g.cell) + g.label;
  return b;
}

// One colour's rectangles as one path: each a subpath that starts with a move relative to the
// previous one's start ("m8,0h7v7h-7z"), about 13 bytes a cell.
class CellPath {
 public:
  void Add(int64_t x, int64_t y, int64_t w, int64_t h) {
    if (d_.empty()) {
      d_ += fmt::format("M{},{}", Px(x), Px(y));
    } else {
      d_ += fmt::format("m{},{}", Px(x - x_), Px(y - y_));
    }
    d_ += fmt::format("h{}v{}h{}z", Px(w), Px(h), Px(-w));
    x_ = x;
    y_ = y;
  }
  const std::string& d() const { return d_; }

 private:
  std::string d_;
  int64_t x_ = 0, y_ = 0;  // where the last subpath started: where "z" leaves the pen
};

std::string QueueName(const std::string& queue) {
  return queue.empty() ? "other schedulers" : queue;
}

std::string NodeTooltip(const NodeOccupancy& node) {
  std::map<std::string, int64_t> held;
  int64_t idle = 0;
  for (const std::vector<GpuHolder>& gpu : node.gpus) {
    int64_t used = 0;
    for (const GpuHolder& h : gpu) {
      held[h.queue] += h.milli;
      used += h.milli;
    }
    idle += std::max<int64_t>(0, 1000 - used);
  }
  std::string text =
      fmt::format("{}{}{} \u00b7 {} GPU{}{}", node.name, node.pool.empty() ? "" : " \u00b7 pool ",
                  node.pool, node.gpus.size(), node.gpus.size() == 1 ? "" : "s",
                  node.usable ? "" : " \u00b7 cannot take pods");
  for (const auto& [queue, milli] : held) {
    text += fmt::format("\n{}: {}", QueueName(queue), Fixed(milli, 1000, 3));
  }
  text += fmt::format("\nidle: {}", Fixed(idle, 1000, 3));
  return text;
}

// The grid's elements, gathered node by node: one path per colour, outlines, names, tooltips.
struct Drawing {
  CellPath idle;
  std::map<std::string, CellPath> by_queue;
  std::string unusable;
  std::string names;
  std::string tooltips;
};

// One node's block with its top left corner at (x, y).
void DrawNode(const Geometry& g, const Block& b, const NodeOccupancy& node, int64_t x, int64_t y,
              Drawing& d) {
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    const int64_t cx = x + static_cast<int64_t>(i) % b.cols * g.pitch;
    const int64_t cy = y + static_cast<int64_t>(i) / b.cols * g.pitch;
    d.idle.Add(cx, cy, g.cell, g.cell);
    int64_t filled = 0;  // of the cell's width: holders side by side, by their portions
    for (const GpuHolder& h : node.gpus[i]) {
      const int64_t w =
          std::min(g.cell - filled, g.cell * std::clamp<int64_t>(h.milli, 0, 1000) / 1000);
      if (w <= 0) continue;
      d.by_queue[h.queue].Add(cx + filled, cy, w, g.cell);
      filled += w;
    }
  }
  const int64_t cells_height = b.height - g.label;
  if (!node.usable) {
    const int64_t w = b.width + Hundredths(2);
    d.unusable += fmt::format("M{},{}h{}v{}h-{}z", Px(x - Hundredths(1)), Px(y - Hundredths(1)),
                              Px(w), Px(cells_height + Hundredths(2)), Px(w));
  }
  if (g.label > 0) {
    const auto chars = static_cast<size_t>(std::max<int64_t>(3, b.width / (10 * 60)));
    d.names +=
        fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", Px(x),
                    Px(y + cells_height + Hundredths(11)), Escape(Ellipsize(node.name, chars)));
  }
  d.tooltips +=
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
                  Px(x), Px(y), Px(b.width), Px(b.height), Escape(NodeTooltip(node)));
}

}  // namespace

int64_t HeldGpuMilli(const OccupancySnapshot& snapshot) {
  int64_t held = 0;
  for (const NodeOccupancy& node : snapshot.nodes) {
    for (const std::vector<GpuHolder>& gpu : node.gpus) {
      int64_t used = 0;
      for (const GpuHolder& h : gpu) used += h.milli;
      held += std::min<int64_t>(used, 1000);
    }
  }
  return held;
}

std::string OccupancyGrid(const OccupancySnapshot& snapshot, const Palette& palette,
                          const std::string& id, int max_width_px) {
  const Geometry g = GeometryFor(snapshot.nodes.size());
  const int64_t max_width = Hundredths(max_width_px);
  Drawing d;
  int64_t x = 0, y = 0, row_height = 0, width = 0;
  for (const NodeOccupancy& node : snapshot.nodes) {
    const Block b = BlockFor(g, node.gpus.size());
    if (x > 0 && x + b.width > max_width) {  // wrap
      x = 0;
      y += row_height + g.node_gap;
      row_height = 0;
    }
    DrawNode(g, b, node, x, y, d);
    x += b.width + g.node_gap;
    width = std::max(width, x - g.node_gap);
    row_height = std::max(row_height, b.height);
  }
  const int64_t height = y + row_height;
  const int64_t margin = Hundredths(2);  // room for the unusable outline
  std::string out = fmt::format(
      "<svg class=\"occupancy\" viewBox=\"{0} {0} {1} {2}\" width=\"{1}\" height=\"{2}\" "
      "role=\"img\" aria-label=\"GPU occupancy at {3}\"><title>GPU occupancy at {3}</title>",
      Px(-margin), Px(width + 2 * margin), Px(height + 2 * margin),
      Duration(snapshot.time.count()));
  if (!d.unusable.empty()) {
    out += fmt::format(
        "<defs><pattern id=\"{}-hatch\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><path d=\"M0,0V4\" stroke=\"#b91c1c\" "
        "stroke-width=\"1.2\"/></pattern></defs>",
        Escape(id));
  }
  out += fmt::format("<path d=\"{}\" fill=\"{}\"/>", d.idle.d(), kIdleColor);
  for (const auto& [queue, path] : d.by_queue) {
    out += fmt::format("<path d=\"{}\" fill=\"{}\"><title>{}</title></path>", path.d(),
                       palette.Color(queue), Escape(QueueName(queue)));
  }
  if (!d.unusable.empty()) {
    out += fmt::format("<path d=\"{}\" fill=\"url(#{}-hatch)\" stroke=\"#b91c1c\"/>", d.unusable,
                       Escape(id));
  }
  if (!d.names.empty()) {
    out += fmt::format("<g font-size=\"10\" fill=\"#4b5563\">{}</g>", d.names);
  }
  out += fmt::format("<g fill-opacity=\"0\">{}</g></svg>", d.tooltips);
  return out;
}

}  // namespace quotient::simulate::svg
