// The report's drawing helpers: step functions downsampled to time-weighted buckets, nice ticks,
// fixed-point labels, escaping, and the log-like wait axis.
#include "simulate/svg_chart.h"

#include <gtest/gtest.h>

#include "simulate/svg_format.h"
#include "simulate/svg_occupancy.h"
#include "simulate/svg_waits.h"

namespace quotient::simulate::svg {
namespace {

TEST(SvgChartTest, FewStretchesAreKeptExactlyAndEqualNeighboursMerge) {
  const std::vector<TimePoint> points = {{0, 5}, {10, 5}, {20, 7}, {20, 9}, {35, 0}};
  bool bucketed = true;
  const std::vector<Span> spans = Downsample(points, 50, 100, &bucketed);
  EXPECT_FALSE(bucketed);
  ASSERT_EQ(spans.size(), 3u);
  // 5 from 0 to 20; the 7 at 20 is replaced by the 9 at the same instant.
  EXPECT_EQ(spans[0].start_s, 0);
  EXPECT_EQ(spans[0].end_s, 20);
  EXPECT_EQ(spans[0].mean, 5);
  EXPECT_EQ(spans[1].mean, 9);
  EXPECT_EQ(spans[1].end_s, 35);
  EXPECT_EQ(spans[2].mean, 0);
  EXPECT_EQ(spans[2].end_s, 50);
}

TEST(SvgChartTest, ManySamplesBecomeTimeWeightedBucketsWithTheirRange) {
  // 150,000 one-second samples alternating 0 and 1000: every bucket's mean is 500.
  std::vector<TimePoint> points;
  for (int64_t t = 0; t < 150'000; ++t) points.push_back({t, t % 2 == 0 ? 0 : 1000});
  bool bucketed = false;
  const std::vector<Span> spans = Downsample(points, 150'000, 300, &bucketed);
  EXPECT_TRUE(bucketed);
  ASSERT_EQ(spans.size(), 300u);
  for (const Span& s : spans) {
    EXPECT_EQ(s.end_s - s.start_s, 500);
    EXPECT_EQ(s.mean, 500);
    EXPECT_EQ(s.low, 0);
    EXPECT_EQ(s.high, 1000);
  }
  EXPECT_EQ(spans.front().start_s, 0);
  EXPECT_EQ(spans.back().end_s, 150'000);
}

TEST(SvgChartTest, BucketMeansWeighValuesByTheTimeTheyHeld) {
  // 100 for 90 s, then 1000 for 10 s: the mean over 100 s is 190, not 550.
  const std::vector<Span> one = Buckets({{0, 100}, {90, 1000}}, 0, 100, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].mean, 190);
  EXPECT_EQ(one[0].low, 100);
  EXPECT_EQ(one[0].high, 1000);
}

TEST(SvgChartTest, GapsStayGapsAndDoNotPullTheMeanDown) {
  const std::vector<Span> spans = Buckets({{0, kGap}, {50, 800}, {100, kGap}}, 0, 200, 4);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0].mean, kGap);
  EXPECT_EQ(spans[1].mean, 800);
  EXPECT_EQ(spans[2].mean, kGap);
  EXPECT_EQ(spans[3].mean, kGap);
  // Half of the first half has a value: its mean is that value.
  EXPECT_EQ(Buckets({{0, kGap}, {50, 800}, {100, kGap}}, 0, 200, 2)[0].mean, 800);
}

TEST(SvgChartTest, TicksFallOnNiceSteps) {
  EXPECT_EQ(TimeTickStep(12'601, 10), 30 * 60);          // 3.5 h: every 30 minutes
  EXPECT_EQ(TimeTickStep(69 * 86'400, 10), 7 * 86'400);  // 69 days: weekly
  EXPECT_EQ(TimeTickStep(40, 10), 5);
  EXPECT_EQ(ValueTickStep(1000, 5, 10), 200);  // 0..100% by 20%
  EXPECT_EQ(ValueTickStep(16'000, 5, 100), 5000);
  EXPECT_EQ(ValueTickStep(3, 5, 1), 1);
  EXPECT_EQ(ValueTickStep(0, 5, 1), 1);
}

TEST(SvgChartTest, ChartHasAxesLegendAndTooltipsAndTheSameBytesTwice) {
  ChartSpec spec;
  spec.label = "GPUs of a<b&c";
  spec.end_s = 7200;
  spec.y = {1000, "", " GPUs", 0, 100};
  std::vector<Series> series = {
      {"a<b&c allocated",
       "#123456",
       Stroke::kSolid,
       true,
       true,
       false,
       {{0, 0}, {600, 4000}, {3600, 8000}}},
      {"fair share", "#654321", Stroke::kDashed, false, false, true, {{0, 8000}}}};
  const std::string svg = StepChart(spec, series);
  EXPECT_EQ(svg.rfind("<svg class=\"chart\"", 0), 0u);
  EXPECT_NE(svg.find("a&lt;b&amp;c allocated"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_NE(svg.find(">1h</text>"), std::string::npos);  // a time tick
  EXPECT_NE(svg.find(">8</text>"), std::string::npos);   // the top value tick
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\""), std::string::npos);
  EXPECT_NE(svg.find("<title>0s \u2013 2m 30s\na&lt;b&amp;c allocated: 0 GPUs"), std::string::npos);
  EXPECT_EQ(svg, StepChart(spec, series));
}

TEST(SvgFormatTest, NumbersDurationsAndTextAreExact) {
  EXPECT_EQ(Px(12345), "123.45");
  EXPECT_EQ(Px(1200), "12");
  EXPECT_EQ(Px(1250), "12.5");
  EXPECT_EQ(Px(-50), "-0.5");
  EXPECT_EQ(Duration(0), "0s");
  EXPECT_EQ(Duration(5400), "1h 30m");
  EXPECT_EQ(Duration(3601), "1h");
  EXPECT_EQ(Duration(12'601, 3), "3h 30m 1s");
  EXPECT_EQ(Duration(90'061), "1d 1h");
  EXPECT_EQ(Fixed(7500, 1000, 3), "7.5");
  EXPECT_EQ(Fixed(8000, 1000, 3), "8");
  EXPECT_EQ(Fixed(785, 10, 1), "78.5");
  EXPECT_EQ(Fixed(7466, 1000, 2), "7.46");
  EXPECT_EQ(Escape("a<b&c \"d\" 'e'>"), "a&lt;b&amp;c &quot;d&quot; &#39;e&#39;&gt;");
  EXPECT_EQ(Ellipsize("abcdefgh", 5), "abcd\u2026");
  EXPECT_EQ(Ellipsize("abc", 5), "abc");
}

TEST(SvgFormatTest, QueuesSortedByNameTakeThePaletteInTurn) {
  const Palette p({"zeta", "alpha", "beta", ""});
  const Palette same({"beta", "zeta", "alpha"});
  EXPECT_EQ(p.Color("alpha"), "#4e79a7");
  EXPECT_EQ(p.Color("beta"), "#f28e2b");
  EXPECT_EQ(p.Color("zeta"), same.Color("zeta"));
  EXPECT_EQ(p.Color(""), kOtherSchedulersColor);
}

TEST(SvgWaitsTest, TheWaitAxisSpacesTicksEvenly) {
  // Axis to 1 hour: ticks 0, 1s, 10s, 1m, 10m, 1h at fifths.
  EXPECT_EQ(WaitAxisPosition(0, 3000), 0);
  EXPECT_EQ(WaitAxisPosition(1, 3000), 200);
  EXPECT_EQ(WaitAxisPosition(60, 3000), 600);
  EXPECT_EQ(WaitAxisPosition(330, 3000), 700);  // halfway from 1m to 10m
  EXPECT_EQ(WaitAxisPosition(3600, 3000), 1000);
  EXPECT_EQ(WaitAxisPosition(99'999, 3000), 1000);  // clamped to the last tick
}

TEST(SvgOccupancyTest, AFractionalHolderFillsItsPortionOfTheCell) {
  OccupancySnapshot s;
  s.time = std::chrono::seconds(5400);
  NodeOccupancy& node = s.nodes.emplace_back();
  node.name = "n1";
  node.gpus = {{{"a", 1000}}, {{"b", 500}}, {}};
  NodeOccupancy& broken = s.nodes.emplace_back();
  broken.name = "n2";
  broken.usable = false;
  broken.gpus = {{}};
  EXPECT_EQ(HeldGpuMilli(s), 1500);
  const std::string svg = OccupancyGrid(s, Palette({"a", "b"}), "t", 1000);
  // A small cluster: 12-pixel cells every 14 pixels; b's half GPU is 6 pixels wide.
  EXPECT_NE(svg.find("<path d=\"M14,0h6v12h-6z\" fill=\"#f28e2b\">"), std::string::npos);
  EXPECT_NE(svg.find("<path d=\"M0,0h12v12h-12z\" fill=\"#4e79a7\">"), std::string::npos);
  EXPECT_NE(svg.find("n1 \u00b7 3 GPUs\na: 1\nb: 0.5\nidle: 1.5</title>"), std::string::npos);
  EXPECT_NE(svg.find("n2 \u00b7 1 GPU \u00b7 cannot take pods"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"url(#t-hatch)\""), std::string::npos);
  EXPECT_NE(svg.find("GPU occupancy at 1h 30m"), std::string::npos);
}

}  // namespace
}  // namespace quotient::simulate::svg
