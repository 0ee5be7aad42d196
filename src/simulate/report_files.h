// A simulation's results as files and a terminal summary:
//   cluster.csv  one row per cycle: time, GPUs, allocated, pending and running pods, evictions
//                and the GPU-hours they destroyed, partly used and stranded GPUs;
//   queues.csv   one row per cycle and queue: allocated GPUs against fair share and deserved;
//   pods.csv     one row per pod: arrival, start, finish, wait, evictions, end state.
// GPUs are printed with three decimals from milli-GPU integers, times in whole seconds, so the
// same run prints the same bytes.
#pragma once

#include <iosfwd>

#include "simulate/simulation.h"

namespace quotient::simulate {

void WriteClusterCsv(const SimulationResult& r, std::ostream& out);
void WriteQueuesCsv(const SimulationResult& r, std::ostream& out);
void WritePodsCsv(const SimulationResult& r, std::ostream& out);

// The summary table: totals, then per queue the pods, how many ran, and wait-time percentiles.
void WriteSummary(const SimulationResult& r, std::ostream& out);

// The p-th percentile (nearest rank) of `sorted`, which is in ascending order; 0 for none.
int64_t Percentile(const std::vector<int64_t>& sorted, int p);

}  // namespace quotient::simulate
