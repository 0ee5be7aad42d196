// The report's occupancy section: every node's GPUs at up to four of each run's recorded
// instants (svg_occupancy.h), with the queues' colour legend.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "simulate/html_report_sections.h"
#include "simulate/svg_occupancy.h"

namespace quotient::simulate::html {
namespace {

using svg::Escape;

constexpr size_t kShownInstants = 4;

int64_t HeldMilli(const OccupancySnapshot& s) {
  int64_t held = 0;
  for (const NodeOccupancy& n : s.nodes) {
    for (const std::vector<GpuHolder>& gpu : n.gpus) {
      for (const GpuHolder& h : gpu) held += h.milli;
    }
  }
  return held;
}

// Up to four snapshots worth looking at: of those where anything holds a GPU (an idle cluster at
// the start or the end shows nothing), spread evenly, first and last included, with the busiest
// one in place of its nearest neighbour. An idle run shows its last snapshot.
std::vector<const OccupancySnapshot*> Chosen(const std::vector<OccupancySnapshot>& all) {
  std::vector<const OccupancySnapshot*> busy;
  std::vector<int64_t> held;
  for (const OccupancySnapshot& s : all) {
    const int64_t h = HeldMilli(s);
    if (h == 0) continue;
    busy.push_back(&s);
    held.push_back(h);
  }
  if (busy.empty()) {
    if (all.empty()) return {};
    return {&all.back()};
  }
  if (busy.size() <= kShownInstants) return busy;
  size_t peak = 0;
  for (size_t i = 1; i < busy.size(); ++i) {
    if (held[i] > held[peak]) peak = i;
  }
  std::vector<size_t> picked;
  for (size_t i = 0; i < kShownInstants; ++i) {
    picked.push_back(i * (busy.size() - 1) / (kShownInstants - 1));
  }
  if (std::find(picked.begin(), picked.end(), peak) == picked.end()) {
    size_t nearest = 0;
    for (size_t i = 1; i < picked.size(); ++i) {
      const auto distance = [&](size_t at) { return at > peak ? at - peak : peak - at; };
      if (distance(picked[i]) < distance(picked[nearest])) nearest = i;
    }
    picked[nearest] = peak;
    std::sort(picked.begin(), picked.end());
  }
  std::vector<const OccupancySnapshot*> chosen;
  for (size_t i : picked) chosen.push_back(busy[i]);
  return chosen;
}

std::string Swatch(const std::string& style, const std::string& text) {
  return fmt::format("<span class=\"item\"><span class=\"cell\" style=\"{}\"></span>{}</span>",
                     style, text);
}

std::string Legend(const ReportContext& c,
                   const std::vector<std::vector<const OccupancySnapshot*>>& shown) {
  std::set<std::string> queues;
  bool unusable = false;
  bool shared = false;
  for (const auto& run : shown) {
    for (const OccupancySnapshot* s : run) {
      for (const NodeOccupancy& n : s->nodes) {
        unusable = unusable || !n.usable;
        for (const auto& gpu : n.gpus) {
          for (const GpuHolder& h : gpu) {
            queues.insert(h.queue);
            shared = shared || h.milli < 1000;
          }
        }
      }
    }
  }
  std::string out = "<div class=\"legend\">";
  for (const std::string& q : queues) {
    if (q.empty()) continue;
    out += Swatch("background:" + c.palette.Color(q), Escape(q));
  }
  if (queues.count("") > 0) {
    out += Swatch(std::string("background:") + svg::kOtherSchedulersColor, "other schedulers");
  }
  out += Swatch(std::string("background:") + svg::kIdleColor, "idle");
  if (shared) {
    out += Swatch("background:linear-gradient(90deg,#4b5563 50%,#e5e7eb 50%)",
                  "shared GPU, half held");
  }
  if (unusable) {
    out += Swatch(
        "background:repeating-linear-gradient(45deg,#b91c1c 0 1.5px,#fff 1.5px 4px);"
        "outline:1px solid #b91c1c",
        "node cannot take pods");
  }
  return out + "</div>";
}

}  // namespace

std::string OccupancySection(const ReportContext& c) {
  std::vector<std::vector<const OccupancySnapshot*>> shown;
  for (const ReportRun& run : c.runs) shown.push_back(Chosen(run.result->occupancy));
  std::string body = Legend(c, shown);
  for (size_t i = 0; i < c.runs.size(); ++i) {
    if (c.Compare()) body += "<h3>" + RunTag(c, i) + "</h3>";
    body += "<div class=\"snapshots\">";
    for (size_t k = 0; k < shown[i].size(); ++k) {
      const OccupancySnapshot& s = *shown[i][k];
      int64_t gpus = 0;
      for (const NodeOccupancy& n : s.nodes) gpus += static_cast<int64_t>(n.gpus.size());
      const int64_t held = svg::HeldGpuMilli(s);
      const std::string caption =
          fmt::format("at {} <span class=\"muted\">{} of {} GPUs held ({}) \u00b7 {} nodes</span>",
                      svg::Duration(s.time.count(), 3), svg::Fixed(held, 1000, 1), gpus,
                      Percent(gpus > 0 ? held / gpus : 0), s.nodes.size());
      body += fmt::format(
          "<figure>"
          "<figcaption>{}</figcaption>{}</figure>",
          caption, svg::OccupancyGrid(s, c.palette, fmt::format("occ{}-{}", i, k), kFullWidth));
    }
    if (shown[i].empty()) body += "<p class=\"none\">No occupancy was recorded.</p>";
    body += "</div>";
  }
  return fmt::format(
      "<section id=\"occupancy\"><h2>GPU occupancy by node</h2><p class=\"note\">Every GPU node "
      "at up to four recorded instants (the last is the end of the run): one block per node, one "
      "cell per GPU, coloured by the queue holding it; a shared GPU is split by its holders' "
      "portions. Hover a node for what each queue holds there.</p>{}</section>",
      body);
}

}  // namespace quotient::simulate::html
