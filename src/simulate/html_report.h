// A simulation's report as one self-contained HTML page: inline SVG plots and CSS, no scripts or
// fonts fetched from anywhere, so it opens offline in any browser. One run, or several runs of
// the same workload side by side (`quotient simulate --compare`).
//
// Sections: the summary figures (a column per run); cluster GPU allocation over time; per queue,
// allocation against fair share and deserved quota; wait-time distributions per queue; evictions
// and the GPU-hours they destroyed over time; pending pods, fragmentation and Jain's fairness
// index over time; the GPU occupancy of every node at the recorded instants. Long runs are
// drawn from at most a few hundred points per line (each the time-weighted mean, and the range,
// of the samples it stands for), so the page stays small.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "simulate/simulation.h"

namespace quotient::simulate {

struct ReportRun {
  std::string label;        // short: "binpack", "baseline"
  std::string description;  // what this run is: its configuration, its objects
  const SimulationResult* result = nullptr;
};

// Writes the page; the same runs give the same bytes.
void WriteHtmlReport(std::string_view title, const std::vector<ReportRun>& runs, std::ostream& out);

}  // namespace quotient::simulate
