// The HTML report's rules: a self-contained page (nothing fetched, no scripts), every section
// with its plot, every run and queue named, names escaped, long runs downsampled to a bounded
// page, large clusters drawn compactly, and the same bytes for the same runs.
#include "simulate/html_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "builders/objects.h"
#include "simulate/simulation_test_workloads.h"
#include "simulate/svg_format.h"
#include "simulate/workload_times.h"

namespace quotient::simulate {
namespace {

using quotient::testing::MakeNode;
using quotient::testing::MakePod;
using quotient::testing::MakeQueue;
using std::chrono::seconds;
using testing::Simulated;
using testing::TwoTeams;
using testing::Work;

constexpr const char* kPlotSections[] = {"allocation", "queues",   "waits",
                                         "evictions",  "pressure", "occupancy"};

// team-b borrows all 16 GPUs, team-a reclaims its 8 at 30 minutes (the example's story).
SimulationResult BorrowAndReclaim(bool with_team_a = true) {
  core::ClusterObjects o;
  for (int i = 0; i < 2; ++i) o.nodes.push_back(MakeNode("node-" + std::to_string(i)).Gpus(8));
  o.queues.push_back(MakeQueue("team-a").Gpu(8, -1, 1));
  o.queues.push_back(MakeQueue("team-b").Gpu(8, -1, 1));
  for (int i = 0; i < 16; ++i)
    o.pods.push_back(Work("b-" + std::to_string(i), "team-b", 1, 0, 7200));
  if (with_team_a) {
    for (int i = 0; i < 8; ++i) {
      o.pods.push_back(Work("a-" + std::to_string(i), "team-a", 1, 1800, 3600));
    }
  }
  Result<SimulationResult> r = Simulate(std::move(o), SimulationOptions{});
  if (!r.ok()) throw std::runtime_error(r.message());
  return std::move(r).value();
}

std::string Html(std::string_view title, const std::vector<ReportRun>& runs) {
  std::ostringstream out;
  WriteHtmlReport(title, runs, out);
  return out.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of <section id="id">...</section>.
std::string SectionOf(const std::string& html, const std::string& id) {
  const size_t start = html.find("<section id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

// A hand-made run: `samples` one-minute cycles over `queues` queues and `nodes` 8-GPU nodes.
SimulationResult Synthetic(int64_t samples, int queues, int nodes) {
  SimulationResult r;
  const int64_t gpus = int64_t{8} * nodes;
  for (int64_t i = 0; i < samples; ++i) {
    ClusterSample c;
    c.time = seconds(i * 60);
    c.gpu_milli = gpus * 1000;
    c.allocated_gpu_milli = (i * 7919) % (gpus + 1) * 1000;
    c.shared_gpu_milli = c.allocated_gpu_milli / 10;
    c.pending_pods = i % 17;
    c.running_pods = i % 23;
    c.evictions = i / 100;
    c.lost_gpu_milli_seconds = i * 3600;
    c.partly_used_gpus = i % 3;
    c.stranded_gpus = i % 5;
    c.jain_permille = i % 10 == 0 ? -1 : 500 + i % 500;
    r.cluster.push_back(c);
    for (int q = 0; q < queues; ++q) {
      QueueSample s;
      s.time = c.time;
      s.queue = "queue-" + std::to_string(q);
      s.allocated_gpu_milli = (i + q) % 9 * 1000;
      s.fair_share_gpu_milli = 4000 + q * 500;
      s.deserved_gpu_milli = q == 0 ? -1 : 4000;
      r.queues.push_back(std::move(s));
    }
  }
  for (int q = 0; q < queues; ++q) {
    for (int p = 0; p < 50; ++p) {
      PodOutcome o;
      o.pod = "ns/q" + std::to_string(q) + "-" + std::to_string(p);
      o.queue = "queue-" + std::to_string(q);
      o.gpu_milli = 1000;
      o.arrival = seconds(p * 10);
      o.started = seconds(p * 10 + p * p * 7);
      o.state = PodState::kRunning;
      r.pods.push_back(std::move(o));
    }
  }
  for (int k = 0; k < 6; ++k) {
    OccupancySnapshot s;
    s.time = seconds(samples * 60 * k / 5);
    for (int n = 0; n < nodes; ++n) {
      NodeOccupancy node;
      node.name = "node-" + std::to_string(n);
      node.usable = n % 97 != 5;
      node.gpus.resize(8);
      for (int g = 0; g < 8; ++g) {
        if ((n + g + k) % 3 == 0) node.gpus[static_cast<size_t>(g)].push_back({"queue-0", 1000});
        if ((n + g) % 5 == 1) {
          node.gpus[static_cast<size_t>(g)].push_back({"queue-1", 500});
          node.gpus[static_cast<size_t>(g)].push_back({"", 250});
        }
      }
      s.nodes.push_back(std::move(node));
    }
    r.occupancy.push_back(std::move(s));
  }
  r.cycles = samples;
  r.end = seconds((samples - 1) * 60);
  return r;
}

int64_t Held(const OccupancySnapshot& s) {
  int64_t held = 0;
  for (const NodeOccupancy& n : s.nodes) {
    for (const auto& gpu : n.gpus) {
      for (const GpuHolder& h : gpu) held += h.milli;
    }
  }
  return held;
}

// The first of the snapshots holding the most GPUs.
const OccupancySnapshot& Busiest(const SimulationResult& r) {
  const OccupancySnapshot* busiest = &r.occupancy.front();
  for (const OccupancySnapshot& s : r.occupancy) {
    if (Held(s) > Held(*busiest)) busiest = &s;
  }
  return *busiest;
}

TEST(HtmlReportTest, OneRunNamesItselfAndItsQueuesAndDrawsEverySection) {
  const SimulationResult r = BorrowAndReclaim();
  const std::string html = Html("Borrow and reclaim", {{"baseline", "KAI defaults, 2 nodes", &r}});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>Borrow and reclaim</title>"), std::string::npos);
  EXPECT_NE(html.find("<h1>Borrow and reclaim</h1>"), std::string::npos);
  EXPECT_NE(html.find("<b>baseline</b> \u2014 KAI defaults, 2 nodes"), std::string::npos);
  EXPECT_NE(SectionOf(html, "summary").find("<div class=\"cards\">"), std::string::npos);
  for (const char* id : kPlotSections) {
    EXPECT_GE(Count(SectionOf(html, id), "<svg class=\""), 1u) << id;
  }
  // One small chart per queue, each queue named in it and in the waits.
  EXPECT_EQ(Count(SectionOf(html, "queues"), "<svg class=\"chart\""), 2u);
  for (const char* queue : {"team-a", "team-b"}) {
    EXPECT_NE(SectionOf(html, "queues").find(queue), std::string::npos) << queue;
    EXPECT_NE(SectionOf(html, "waits").find(queue), std::string::npos) << queue;
  }
  // The evictions: 8 pods of team-b, 4 GPU-hours.
  EXPECT_NE(SectionOf(html, "evictions").find("8 evictions destroyed 4.000 GPU-hours"),
            std::string::npos);
  // Occupancy at up to four instants, the busiest among them, and none where every GPU is idle
  // (the start, the end once everything completed).
  const std::string occupancy = SectionOf(html, "occupancy");
  EXPECT_GE(Count(occupancy, "<svg class=\"occupancy\""), 1u);
  EXPECT_LE(Count(occupancy, "<svg class=\"occupancy\""), 4u);
  EXPECT_NE(occupancy.find("GPU occupancy at " + svg::Duration(Busiest(r).time.count())),
            std::string::npos);
  for (const OccupancySnapshot& s : r.occupancy) {
    if (Held(s) == 0) {
      EXPECT_EQ(occupancy.find("GPU occupancy at " + svg::Duration(s.time.count()) + "<"),
                std::string::npos)
          << s.time.count();
    }
  }
}

TEST(HtmlReportTest, ThePageFetchesNothingAndRunsNoScript) {
  const SimulationResult r = BorrowAndReclaim();
  const std::string html = Html("Offline", {{"baseline", "", &r}});
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
}

TEST(HtmlReportTest, TheSameRunsGiveTheSameBytes) {
  const SimulationResult a = BorrowAndReclaim();
  const SimulationResult b = BorrowAndReclaim();
  EXPECT_EQ(Html("Same", {{"x", "one", &a}}), Html("Same", {{"x", "one", &b}}));
  const SimulationResult big = Synthetic(5000, 4, 200);
  EXPECT_EQ(Html("Same", {{"x", "", &big}, {"y", "", &a}}),
            Html("Same", {{"x", "", &big}, {"y", "", &a}}));
}

TEST(HtmlReportTest, NamesAreEscapedEverywhere) {
  SimulationResult r = Synthetic(50, 1, 2);
  for (QueueSample& s : r.queues) s.queue = "a<b&c";
  for (PodOutcome& p : r.pods) p.queue = "a<b&c";
  for (OccupancySnapshot& s : r.occupancy) {
    for (NodeOccupancy& n : s.nodes) {
      n.name = "node\"<x>";
      for (auto& gpu : n.gpus) {
        for (GpuHolder& h : gpu) h.queue = "a<b&c";
      }
    }
  }
  const std::string html = Html("Report <&>", {{"run \"1\" <i>", "a & b", &r}});
  EXPECT_EQ(html.find("a<b"), std::string::npos);
  EXPECT_EQ(html.find("<x>"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_EQ(html.find("Report <&>"), std::string::npos);
  EXPECT_NE(html.find("<title>Report &lt;&amp;&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b&amp;c"), std::string::npos);
  EXPECT_NE(html.find("run &quot;1&quot; &lt;i&gt;"), std::string::npos);
  EXPECT_NE(html.find("node&quot;&lt;x&gt;"), std::string::npos);
}

TEST(HtmlReportTest, AComparisonDrawsEveryRunInEveryQueueChart) {
  const SimulationResult baseline = BorrowAndReclaim();
  const SimulationResult quiet = BorrowAndReclaim(false);
  const std::string html =
      Html("Compare", {{"baseline", "with team-a", &baseline}, {"quiet", "team-b alone", &quiet}});
  EXPECT_NE(html.find("<b>baseline</b>"), std::string::npos);
  EXPECT_NE(html.find("<b>quiet</b>"), std::string::npos);
  // The totals table has a column per run.
  const std::string summary = SectionOf(html, "summary");
  EXPECT_EQ(Count(summary.substr(0, summary.find("</thead>")), "<th>"), 3u);
  // Each queue's chart has both runs' allocation.
  const std::string queues = SectionOf(html, "queues");
  EXPECT_EQ(Count(queues, "<svg class=\"chart\""), 2u);
  EXPECT_EQ(Count(queues, "<title>baseline allocated</title>"), 2u);
  EXPECT_EQ(Count(queues, "<title>quiet allocated</title>"), 2u);
  // The allocation chart: a line per run, in the runs' colours, with a legend.
  const std::string allocation = SectionOf(html, "allocation");
  EXPECT_NE(allocation.find(">baseline</text>"), std::string::npos);
  EXPECT_NE(allocation.find(">quiet</text>"), std::string::npos);
  EXPECT_NE(allocation.find(svg::RunColor(0)), std::string::npos);
  EXPECT_NE(allocation.find(svg::RunColor(1)), std::string::npos);
  // Waits: a row per run under each queue; occupancy: each run's grids.
  EXPECT_EQ(Count(SectionOf(html, "waits"), ">baseline</text>"), 2u);
  EXPECT_GE(Count(SectionOf(html, "occupancy"), "<svg class=\"occupancy\""), 2u);
  for (const char* id : kPlotSections) {
    EXPECT_GE(Count(SectionOf(html, id), "<svg class=\""), 1u) << id;
  }
}

TEST(HtmlReportTest, ALongRunIsDownsampledToABoundedPage) {
  // 100,000 cycles and 3 queues: 400,000 samples; 1,000 nodes of 8 GPUs at 6 instants.
  const SimulationResult r = Synthetic(100'000, 3, 1000);
  const std::string html = Html("Long", {{"long", "", &r}});
  EXPECT_LT(html.size(), 2'500'000u);
  // The allocation chart's lines have a few hundred points, not 100,000.
  const std::string allocation = SectionOf(html, "allocation");
  EXPECT_LT(allocation.size(), 120'000u);
  // Two lines, their two areas and a band of two edges: six paths of at most 322 vertices.
  EXPECT_LT(Count(allocation, "L"), 6 * 330u);
  // Occupancy at four of the six instants, the busiest among them.
  const std::string occupancy = SectionOf(html, "occupancy");
  EXPECT_EQ(Count(occupancy, "<svg class=\"occupancy\""), 4u);
  EXPECT_NE(occupancy.find("GPU occupancy at " + svg::Duration(Busiest(r).time.count())),
            std::string::npos);
  // Each node's tooltip; unusable nodes hatched; shared GPUs with other schedulers' pods.
  EXPECT_EQ(Count(occupancy, "<title>node-"), 4000u);
  EXPECT_NE(occupancy.find("cannot take pods"), std::string::npos);
  EXPECT_NE(occupancy.find("-hatch)"), std::string::npos);
  EXPECT_NE(occupancy.find("other schedulers"), std::string::npos);
  // Compact: well under 200 bytes per GPU per instant.
  EXPECT_LT(occupancy.size(), 4u * 8000u * 100u);
}

TEST(HtmlReportTest, AnEmptyRunStillGivesAPage) {
  const SimulationResult empty;
  const std::string html = Html("Empty", {{"nothing", "", &empty}});
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find("No occupancy was recorded."), std::string::npos);
  EXPECT_NE(Html("None", {}).find("No runs"), std::string::npos);
}

}  // namespace
}  // namespace quotient::simulate
