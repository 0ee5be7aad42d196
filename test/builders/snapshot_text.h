// A snapshot flattened to text for tests that compare two (a patched one and a full build):
// one line per node, pod, job, queue and budget with the fields the scheduler reads, indices
// included, so a mismatch shows where. Warnings come last and sorted: after a patch they are the
// same as a full build's, but not in its order.
#pragma once

#include <string>
#include <vector>

#include "core/snapshot_builder.h"

namespace quotient::testing {

std::vector<std::string> DescribeSnapshot(const core::SnapshotBuild& build);

}  // namespace quotient::testing
