// The FGD replay's procedure on clusters small enough to follow by hand: the top-up to 130%,
// the binning by arrived %, the placement it records, and determinism.
#include "experiments/fgd_replay.h"

#include <sstream>

#include "experiments/fgd_plot.h"
#include "experiments/fgd_results.h"

#include <gtest/gtest.h>

namespace quotient::experiments {
namespace {

traces::OpenbTrace Trace(int nodes, int gpus_per_node, const std::vector<int64_t>& pod_gpu_milli) {
  traces::OpenbTrace t;
  for (int i = 0; i < nodes; ++i) {
    t.nodes.push_back({"node-" + std::to_string(i), 64'000, 262'144, gpus_per_node, "V100"});
  }
  for (size_t i = 0; i < pod_gpu_milli.size(); ++i) {
    traces::OpenbPod p;
    p.name = "pod-" + std::to_string(i);
    p.cpu_milli = 1000;
    p.memory_mib = 1024;
    p.gpus = pod_gpu_milli[i] > 0 ? 1 : 0;
    p.gpu_milli = pod_gpu_milli[i];
    p.qos = "LS";
    p.phase = "Running";
    p.created = static_cast<int64_t>(i);
    t.pods.push_back(std::move(p));
  }
  return t;
}

FgdWorkload Workload(const traces::OpenbTrace& t) {
  Result<FgdWorkload> w = FgdWorkloadOf("test", t);
  if (!w.ok()) throw std::runtime_error(w.message());
  return std::move(w).value();
}

TEST(FgdReplayTest, RoundsHalvesToEvenAsThePublishedBinning) {
  EXPECT_EQ(RoundedPercent(125, 1000), 12);  // 12.5 -> 12
  EXPECT_EQ(RoundedPercent(375, 1000), 38);  // 37.5 -> 38
  EXPECT_EQ(RoundedPercent(1001, 1000), 100);
  EXPECT_EQ(RoundedPercent(1006, 1000), 101);
  EXPECT_EQ(RoundedPercent(0, 1000), 0);
}

TEST(FgdReplayTest, TopsUpTo130PercentAndBinsEachArrival) {
  // 4 nodes of 2 GPUs: 8 GPUs. Four 1-GPU pods are 50%; drawing more until the next would pass
  // 10.4 GPUs gives 10 pods. The first 8 fit; the last 2 find no GPU.
  const FgdRun run = ReplayFgd(Workload(Trace(4, 2, {1000, 1000, 1000, 1000})), {});
  EXPECT_EQ(run.cluster_gpu_milli, 8000);
  EXPECT_EQ(run.pods_tried, 10);
  EXPECT_EQ(run.pods_placed, 8);
  ASSERT_EQ(run.allocation_centi.size(), 131u);
  // Each pod adds 12.5%: arrivals land in bins 12, 25, 38, 50, 62, 75, 88, 100, 112, 125.
  EXPECT_EQ(run.allocation_centi[12], 1250);
  EXPECT_EQ(run.allocation_centi[13], 1250);  // no arrival: the bin before
  EXPECT_EQ(run.allocation_centi[50], 5000);
  EXPECT_EQ(run.allocation_centi[100], 10000);
  EXPECT_EQ(run.allocation_centi[125], 10000);
  EXPECT_EQ(run.allocation_centi[130], 10000);
  EXPECT_EQ(run.allocation_centi[0], 0);
}

TEST(FgdReplayTest, FractionsShareGpusAndTheSameSeedGivesTheSameRun) {
  // One node of 2 GPUs; pods of 0.5 and 0.7 GPU. Whatever the order, at most 2 GPUs are held
  // and two 0.7s cannot share a GPU.
  const FgdWorkload w = Workload(Trace(1, 2, {500, 700, 500, 700}));
  const FgdRun a = ReplayFgd(w, {});
  const FgdRun b = ReplayFgd(w, {});
  EXPECT_EQ(a.allocation_centi, b.allocation_centi);
  EXPECT_EQ(a.pods_placed, b.pods_placed);
  for (int64_t v : a.allocation_centi) EXPECT_LE(v, 10000);
  // Allocation never runs ahead of arrival.
  for (size_t bin = 0; bin < a.allocation_centi.size(); ++bin) {
    EXPECT_LE(a.allocation_centi[bin], static_cast<int64_t>(bin) * 100 + 50) << bin;
  }
  FgdOptions other;
  other.seed = 43;
  EXPECT_EQ(ReplayFgd(w, other).cluster_gpu_milli, 2000);
}

TEST(FgdResultsTest, MedianOverSeedsAndThePublishedShape) {
  std::vector<FgdRun> runs(4);
  const int64_t allocated[] = {9500, 9400, 9600, 9300};  // unallocated 5.00, 6.00, 4.00, 7.00 %
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].allocation_centi.assign(131, 0);
    runs[i].allocation_centi[100] = allocated[i];
  }
  EXPECT_EQ(MedianUnallocatedCenti(runs), 550);  // (5.00 + 6.00) / 2
  runs.pop_back();
  EXPECT_EQ(MedianUnallocatedCenti(runs), 500);

  FgdRun run;
  run.workload = "openb_pod_list_default";
  run.seed = 42;
  run.cluster_gpu_milli = 6'212'000;
  run.allocation_centi.assign(131, 9523);
  std::ostringstream out;
  WriteAllocationCsvHeader(out);
  WriteAllocationCsvRow(run, "binpack", 1300, out);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("workload,sc_policy,tune,seed,total_gpus,0,1,", 0), 0u);
  EXPECT_NE(text.find(",129,130\nopenb_pod_list_default,binpack,1.3,42,6212,95.23,"),
            std::string::npos);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FgdPlotTest, DrawsALinePerPolicyAndThePapersPointsInRange) {
  PlotLine ours{"frag<mentation>", std::vector<int64_t>(131, 300)};
  ours.unallocated_centi[120] = 1234;  // the highest drawn: the axis goes to 15%
  const PlotLine packed{"binpack", std::vector<int64_t>(131, 900)};
  // 60% is left of the plot (it starts at 70%): one marker of three is not drawn.
  const PlotMarkers fgd{"06-FGD", {{60, 100}, {100, 477}, {130, 460}}};
  std::ostringstream out;
  WriteUnallocatedPlot("default & more", {ours, packed}, {fgd}, 70, out);
  const std::string svg = out.str();
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline "), 2u);
  EXPECT_EQ(Count(svg, "<circle "), 2u + 1u);  // two points and the legend's swatch
  EXPECT_NE(svg.find(">15%</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">20%</text>"), std::string::npos);
  EXPECT_NE(svg.find("default &amp; more"), std::string::npos);
  EXPECT_NE(svg.find("frag&lt;mentation&gt; (ours)"), std::string::npos);
  EXPECT_NE(svg.find("06-FGD at 100%: 4.77%"), std::string::npos);
  // Arrived from 70% to 130%, every 10%.
  EXPECT_NE(svg.find(">70%</text>"), std::string::npos);
  EXPECT_NE(svg.find(">130%</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">60%</text>"), std::string::npos);
}

}  // namespace
}  // namespace quotient::experiments
