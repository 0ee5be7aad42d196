// A simulation's totals, computed once for every view of them: the terminal table, the HTML
// report and a comparison of two runs. Time-weighted figures weigh each cycle's sample by the
// time until the next one (the last sample weighs nothing: nothing follows it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulate/simulation.h"

namespace quotient::simulate {

struct QueueSummary {
  std::string queue;  // "" for pods no queue took
  int64_t pods = 0;
  int64_t ran = 0;  // ever bound
  int64_t completed = 0;
  int64_t evictions = 0;
  int64_t wait_p50 = 0;  // seconds from arrival to first bind, nearest rank, over pods that ran
  int64_t wait_p95 = 0;
  int64_t wait_p99 = 0;
  int64_t completion_p50 = 0;  // seconds from arrival to completion, over completed pods
  int64_t completion_p95 = 0;
  std::vector<int64_t> waits;  // every wait, ascending (the distribution the report plots)
};

struct RunSummary {
  int64_t end_s = 0;
  int64_t cycles = 0;
  int64_t pods = 0;
  int64_t completed = 0;
  int64_t running = 0;
  int64_t pending = 0;
  int64_t allocation_permille = 0;          // GPU time held over GPU time of usable nodes
  int64_t shared_allocation_permille = 0;   // of GPU time of usable nodes, held by fractional pods
  int64_t mean_partly_used_gpus_milli = 0;  // time-weighted mean, in thousandths
  int64_t mean_stranded_gpus_milli = 0;
  int64_t fairness_permille = -1;  // time-weighted mean of Jain's index where it was defined
  int64_t evictions = 0;
  int64_t lost_gpu_milli_hours = 0;
  std::vector<QueueSummary> queues;  // by name
};

RunSummary Summarize(const SimulationResult& r);

// The p-th percentile (nearest rank) of `sorted`, which is in ascending order; 0 for none.
int64_t Percentile(const std::vector<int64_t>& sorted, int p);

// A thousandths integer as "12.500" (milli-GPUs as GPUs, permille as a fraction).
std::string Milli(int64_t milli);

// A permille integer as "78.5%".
std::string Percent(int64_t permille);

}  // namespace quotient::simulate
