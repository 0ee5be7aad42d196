// A generator preset as the benchmarks use it: the cluster's objects (generated, written as the
// JSON `quotient generate cluster` prints and read back by the same loader `quotient schedule`
// uses), made once per process.
#pragma once

#include <string>

#include "core/objects.h"

namespace quotient::bench {

// The objects of preset `name` (small, large, xlarge, reclaim-1000; and scaled-<N> and
// teams-<N>, large's shape at N nodes, and small-pools-mixed: see preset_cluster.cc). Exits the
// process with a message when the name is unknown or the text does not load cleanly: a benchmark
// of a broken cluster would measure nothing.
const core::ClusterObjects& PresetObjects(const std::string& name);

// The process's peak resident memory so far, in MiB (getrusage).
double PeakRssMib();

}  // namespace quotient::bench
