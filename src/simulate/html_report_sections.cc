// The report's plot sections over time: allocation, queues, evictions, pending work,
// fragmentation and fairness (svg_chart.h); the wait-time distributions (svg_waits.h).
#include "simulate/html_report_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "simulate/svg_chart.h"
#include "simulate/svg_waits.h"

namespace quotient::simulate::html {
namespace {

using svg::Escape;
using svg::Series;
using svg::TimePoint;

constexpr const char* kBlue = "#2563eb";
constexpr const char* kAmber = "#f59e0b";
constexpr const char* kRed = "#dc2626";
constexpr const char* kPurple = "#7c3aed";
constexpr const char* kGreen = "#16a34a";
constexpr const char* kSlate = "#334155";
constexpr const char* kGrey = "#94a3b8";

// A value of each cluster sample as a step function.
std::vector<TimePoint> ClusterPoints(const SimulationResult& r,
                                     const std::function<int64_t(const ClusterSample&)>& value) {
  std::vector<TimePoint> points;
  points.reserve(r.cluster.size());
  for (const ClusterSample& s : r.cluster) points.push_back({s.time.count(), value(s)});
  return points;
}

int64_t PermilleOf(int64_t part, int64_t whole) { return whole > 0 ? part * 1000 / whole : 0; }

std::string Section(const std::string& id, const std::string& title, const std::string& note,
                    const std::string& body) {
  return fmt::format("<section id=\"{}\"><h2>{}</h2><p class=\"note\">{}</p>{}</section>", id,
                     title, note, body);
}

std::string Figure(const std::string& caption, const std::string& svg) {
  return fmt::format("<figure><figcaption>{}</figcaption>{}</figure>", caption, svg);
}

svg::ChartSpec Spec(const ReportContext& c, std::string label, int width, int height,
                    svg::ValueAxis y) {
  svg::ChartSpec spec;
  spec.label = std::move(label);
  spec.width_px = width;
  spec.height_px = height;
  spec.end_s = c.end_s;
  spec.y = std::move(y);
  return spec;
}

svg::ValueAxis Percentage() { return {10, "%", "%", 1000, 10}; }
svg::ValueAxis Gpus() { return {1000, "", " GPUs", 0, 100}; }
svg::ValueAxis Count(std::string unit) { return {1, "", std::move(unit), 0, 1}; }

// One line per run of `value`, in the runs' colours.
std::vector<Series> PerRun(const ReportContext& c,
                           const std::function<int64_t(const ClusterSample&)>& value,
                           svg::Stroke stroke = svg::Stroke::kSolid,
                           const std::string& suffix = "") {
  std::vector<Series> series;
  for (size_t i = 0; i < c.runs.size(); ++i) {
    Series s{c.runs[i].label + suffix, svg::RunColor(i), stroke, false, true, false, {}};
    s.points = ClusterPoints(*c.runs[i].result, value);
    s.range = false;  // two runs' bands would blur into one
    s.wide = i == 0;
    series.push_back(std::move(s));
  }
  return series;
}

// A queue's samples in one run: allocated, fair share, deserved (gaps where unlimited).
struct QueuePoints {
  std::vector<TimePoint> allocated, fair_share, deserved;
  bool limited = false;  // deserved is a number somewhere
};

QueuePoints PointsOf(const SimulationResult& r, const std::string& queue) {
  QueuePoints p;
  for (const QueueSample& s : r.queues) {
    if (s.queue != queue) continue;
    const int64_t t = s.time.count();
    p.allocated.push_back({t, s.allocated_gpu_milli});
    p.fair_share.push_back({t, s.fair_share_gpu_milli});
    p.deserved.push_back({t, s.deserved_gpu_milli < 0 ? svg::kGap : s.deserved_gpu_milli});
    p.limited = p.limited || s.deserved_gpu_milli >= 0;
  }
  return p;
}

std::string QueueLegend(const ReportContext& c) {
  const auto item = [](const char* color, const char* width, const char* dash,
                       const std::string& text) {
    return fmt::format(
        "<span class=\"item\"><svg width=\"22\" height=\"10\"><path d=\"M1,5H21\" stroke=\"{}\" "
        "stroke-width=\"{}\"{}/></svg>{}</span>",
        color, width, dash, text);
  };
  constexpr const char* kDashed = " stroke-dasharray=\"6 4\"";
  std::string out = "<div class=\"legend\">";
  if (c.Compare()) {
    for (size_t i = 0; i < c.runs.size(); ++i) {
      out +=
          item(svg::RunColor(i), i == 0 ? "3.5" : "2", "", Escape(c.runs[i].label) + " allocated");
      out += item(svg::RunColor(i), "1.5", kDashed, Escape(c.runs[i].label) + " fair share");
    }
  } else {
    out += item(kBlue, "2", "", "allocated (band: its range within a time bucket)");
    out += item(kSlate, "1.5", kDashed, "fair share");
  }
  out +=
      item(kGrey, "2", " stroke-dasharray=\"1.5 3\" stroke-linecap=\"round\"", "deserved (quota)");
  return out + "</div>";
}

}  // namespace

std::string AllocationSection(const ReportContext& c) {
  std::vector<Series> series;
  if (c.Compare()) {
    series = PerRun(
        c, [](const ClusterSample& s) { return PermilleOf(s.allocated_gpu_milli, s.gpu_milli); });
  } else {
    const SimulationResult& r = *c.runs[0].result;
    series.push_back({"GPUs held", kBlue, svg::Stroke::kSolid, true, true, false,
                      ClusterPoints(r, [](const ClusterSample& s) {
                        return PermilleOf(s.allocated_gpu_milli, s.gpu_milli);
                      })});
    series.push_back({"held by fractional (shared-GPU) pods", kAmber, svg::Stroke::kSolid, true,
                      false, false, ClusterPoints(r, [](const ClusterSample& s) {
                        return PermilleOf(s.shared_gpu_milli, s.gpu_milli);
                      })});
  }
  // Up to 100% when the cluster gets that full; else a scale that shows the shape.
  int64_t highest = 0;
  for (const Series& s : series) {
    for (const TimePoint& p : s.points) highest = std::max(highest, p.value);
  }
  svg::ValueAxis axis = Percentage();
  if (highest <= 600) axis.max = 0;
  const int64_t gpus =
      c.runs[0].result->cluster.empty() ? 0 : c.runs[0].result->cluster.front().gpu_milli;
  std::string note = fmt::format(
      "Share of the usable nodes' GPUs ({} at the start) held by the workload's pods after each "
      "cycle. Long runs are drawn as time buckets: the line is each bucket's time-weighted mean, "
      "the band its range. Hover for values.",
      svg::Fixed(gpus, 1000, 3));
  return Section(
      "allocation", "Cluster GPU allocation", note,
      svg::StepChart(Spec(c, "Cluster GPU allocation, % of GPUs", kFullWidth, 300, axis), series));
}

std::string QueuesSection(const ReportContext& c) {
  std::set<std::string> names;
  for (const ReportRun& run : c.runs) {
    for (const QueueSample& s : run.result->queues) names.insert(s.queue);
  }
  std::string figures;
  for (const std::string& name : names) {
    std::vector<Series> series;
    bool limited = false;
    std::vector<TimePoint> deserved;
    for (size_t i = 0; i < c.runs.size(); ++i) {
      QueuePoints p = PointsOf(*c.runs[i].result, name);
      const std::string run = c.Compare() ? c.runs[i].label + " " : "";
      const std::string color = c.Compare() ? svg::RunColor(i) : kBlue;
      series.push_back({run + "allocated", color, svg::Stroke::kSolid, !c.Compare(), !c.Compare(),
                        false, std::move(p.allocated), c.Compare() && i == 0});
      series.push_back({run + "fair share", c.Compare() ? color : kSlate, svg::Stroke::kDashed,
                        false, false, true, std::move(p.fair_share)});
      if (i == 0) {
        limited = p.limited;
        deserved = std::move(p.deserved);
      }
    }
    if (limited) {
      series.push_back(
          {"deserved", kGrey, svg::Stroke::kDotted, false, false, false, std::move(deserved)});
    }
    svg::ChartSpec spec = Spec(c, "Queue " + name + ": GPUs", 350, 200, Gpus());
    spec.legend = false;
    spec.hover_columns = 24;
    spec.max_spans = 160;
    figures += Figure(fmt::format("<span class=\"sw\" style=\"background:{}\"></span>{}",
                                  c.palette.Color(name), Escape(name)),
                      svg::StepChart(spec, series));
  }
  if (names.empty()) figures = "<p class=\"none\">No queue samples.</p>";
  return Section("queues", "Queues: allocation, fair share and quota",
                 "GPUs each queue held, against the fair share each cycle computed for it and "
                 "its deserved quota (a parent queue sums its children). Each chart has its own "
                 "scale.",
                 QueueLegend(c) + "<div class=\"multiples\">" + figures + "</div>");
}

std::string WaitsSection(const ReportContext& c) {
  std::set<std::string> names;
  for (const RunSummary& s : c.summaries) {
    for (const QueueSummary& q : s.queues) names.insert(q.queue);
  }
  std::vector<svg::WaitGroup> groups;
  for (const std::string& name : names) {
    svg::WaitGroup g{name.empty() ? "(no queue)" : name, {}};
    for (size_t i = 0; i < c.runs.size(); ++i) {
      svg::WaitRow row{c.Compare() ? c.runs[i].label : "",
                       c.Compare() ? svg::RunColor(i) : c.palette.Color(name), 0, nullptr};
      for (const QueueSummary& q : c.summaries[i].queues) {
        if (q.queue != name) continue;
        row.pods = q.pods;
        row.waits = &q.waits;
      }
      g.rows.push_back(std::move(row));
    }
    groups.push_back(std::move(g));
  }
  const std::string body =
      groups.empty() ? "<p class=\"none\">No pods.</p>" : svg::WaitChart(groups, kFullWidth);
  return Section("waits", "Wait before first start",
                 "From each pod's arrival to its first start, over the pods that started. The axis "
                 "is log-like: its ticks are evenly spaced, linear in between. Beside each bar: "
                 "pods started of the queue's pods, median, 95th percentile and longest wait.",
                 body);
}

std::string EvictionsSection(const ReportContext& c) {
  const auto evictions = [](const ClusterSample& s) { return s.evictions; };
  const auto lost = [](const ClusterSample& s) { return s.lost_gpu_milli_seconds / 3600; };
  std::vector<Series> counts, hours;
  if (c.Compare()) {
    counts = PerRun(c, evictions);
    hours = PerRun(c, lost);
  } else {
    const SimulationResult& r = *c.runs[0].result;
    counts.push_back(
        {"evictions", kRed, svg::Stroke::kSolid, true, false, false, ClusterPoints(r, evictions)});
    hours.push_back({"GPU-hours destroyed", kPurple, svg::Stroke::kSolid, true, false, false,
                     ClusterPoints(r, lost)});
  }
  svg::ValueAxis gpu_hours{1000, "", " GPU-hours", 0, 100};
  std::string note;
  for (size_t i = 0; i < c.runs.size(); ++i) {
    const RunSummary& s = c.summaries[i];
    note += i > 0 ? " " : "";
    if (c.Compare()) note += Escape(c.runs[i].label) + ": ";
    note += s.evictions == 0
                ? std::string(c.Compare() ? "no pod was evicted." : "No pod was evicted.")
                : fmt::format("{} evictions destroyed {} GPU-hours of work.", s.evictions,
                              Milli(s.lost_gpu_milli_hours));
  }
  note += " An evicted pod loses the progress it does not checkpoint.";
  return Section(
      "evictions", "Evictions", note,
      "<div class=\"pair\">" +
          Figure("Evictions so far",
                 svg::StepChart(Spec(c, "Evictions so far", kHalfWidth, 240, Count(" evictions")),
                                counts)) +
          Figure("GPU-hours destroyed so far",
                 svg::StepChart(Spec(c, "GPU-hours destroyed so far", kHalfWidth, 240, gpu_hours),
                                hours)) +
          "</div>");
}

std::string PressureSection(const ReportContext& c) {
  const auto pending = [](const ClusterSample& s) { return s.pending_pods; };
  const auto partly = [](const ClusterSample& s) { return s.partly_used_gpus; };
  const auto stranded = [](const ClusterSample& s) { return s.stranded_gpus; };
  const auto jain = [](const ClusterSample& s) {
    return s.jain_permille < 0 ? svg::kGap : s.jain_permille;
  };
  std::vector<Series> waiting, fragments, fairness;
  if (c.Compare()) {
    waiting = PerRun(c, pending);
    fragments = PerRun(c, stranded, svg::Stroke::kSolid, " stranded");
    for (Series& s : PerRun(c, partly, svg::Stroke::kDashed, " partly used")) {
      fragments.push_back(std::move(s));
    }
    fairness = PerRun(c, jain);
  } else {
    const SimulationResult& r = *c.runs[0].result;
    waiting.push_back(
        {"pending pods", kBlue, svg::Stroke::kSolid, true, true, false, ClusterPoints(r, pending)});
    fragments.push_back({"stranded GPUs", kRed, svg::Stroke::kSolid, false, true, false,
                         ClusterPoints(r, stranded)});
    fragments.push_back({"partly used GPUs", kAmber, svg::Stroke::kSolid, false, true, false,
                         ClusterPoints(r, partly)});
    fairness.push_back(
        {"Jain's index", kGreen, svg::Stroke::kSolid, false, true, false, ClusterPoints(r, jain)});
  }
  svg::ValueAxis index{1000, "", "", 1000, 100};
  return Section(
      "pressure", "Pending work, fragmentation and fairness",
      "Pending pods: arrived and not running. Stranded GPUs: idle GPUs on nodes with too few "
      "idle for a full-node gang; partly used GPUs: shared GPUs with room left. Jain's index "
      "of the leaf queues' allocation relative to their fair share: 1 when every queue holds "
      "the same fraction of its share (blank while no queue has a share).",
      "<div class=\"pair\">" +
          Figure(
              "Pending pods",
              svg::StepChart(Spec(c, "Pending pods", kHalfWidth, 240, Count(" pods")), waiting)) +
          Figure("Fragmentation (GPUs)",
                 svg::StepChart(Spec(c, "Fragmentation: stranded and partly used GPUs", kHalfWidth,
                                     240, Count(" GPUs")),
                                fragments)) +
          Figure(
              "Jain's fairness index",
              svg::StepChart(Spec(c, "Jain's fairness index", kHalfWidth, 240, index), fairness)) +
          "</div>");
}

}  // namespace quotient::simulate::html
