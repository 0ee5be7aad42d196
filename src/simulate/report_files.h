// A simulation's results as files and a terminal summary:
//   cluster.csv  one row per cycle: time, GPUs, allocated (and by fractional pods), pending and
//                running pods, evictions and the GPU-hours they destroyed, partly used and
//                stranded GPUs, Jain's fairness index;
//   queues.csv   one row per cycle and queue: allocated GPUs against fair share and deserved;
//   pods.csv     one row per pod: arrival, start, finish, wait, evictions, end state.
// GPUs are printed with three decimals from milli-GPU integers, times in whole seconds, so the
// same run prints the same bytes.
#pragma once

#include <iosfwd>

#include "simulate/run_summary.h"
#include "simulate/simulation.h"

namespace quotient::simulate {

void WriteClusterCsv(const SimulationResult& r, std::ostream& out);
void WriteQueuesCsv(const SimulationResult& r, std::ostream& out);
void WritePodsCsv(const SimulationResult& r, std::ostream& out);

// The summary: totals (allocation, evictions, fragmentation, fairness), then per queue the
// pods, how many ran, their evictions, wait-time and completion-time percentiles.
void WriteSummary(const SimulationResult& r, std::ostream& out);

}  // namespace quotient::simulate
