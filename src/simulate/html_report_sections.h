// The HTML report's sections (html_report.h), each a <section> element with its heading, a note
// on what it shows and its plots. Internal to the report: html_report.cc assembles the page.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulate/html_report.h"
#include "simulate/run_summary.h"
#include "simulate/svg_format.h"

namespace quotient::simulate::html {

// What every section reads: the runs (each with a result), their totals and the queues' colours.
struct ReportContext {
  std::vector<ReportRun> runs;
  std::vector<RunSummary> summaries;  // one per run
  svg::Palette palette;
  int64_t end_s = 0;  // the longest run's end: every time axis runs to it

  bool Compare() const { return runs.size() > 1; }
};

// Page width available to a plot, in pixels.
inline constexpr int kFullWidth = 1080;
inline constexpr int kHalfWidth = 530;

std::string SummarySection(const ReportContext& c);
std::string AllocationSection(const ReportContext& c);
std::string QueuesSection(const ReportContext& c);
std::string WaitsSection(const ReportContext& c);
std::string EvictionsSection(const ReportContext& c);
std::string PressureSection(const ReportContext& c);  // pending, fragmentation, fairness
std::string OccupancySection(const ReportContext& c);

// A run's colour dot and label, for legends and tables in comparisons.
std::string RunTag(const ReportContext& c, size_t run);

}  // namespace quotient::simulate::html
