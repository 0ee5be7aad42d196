// The seeded case generator: small clusters (1-12 nodes, up to ~60 pods) over the whole surface
// KAI's scheduler reads — queue trees of 1-3 levels with quotas, limits and over-quota weights
// per resource (0, -1 = unlimited, other negative values), queue priorities, a Queue without
// spec.resources; gangs, elastic jobs, subgroups and minSubGroup; whole GPUs, gpu-fraction,
// gpu-memory, multi-device fractions, MIG (mixed and single strategy); node pools, taints,
// selectors and node affinity; running, pending, releasing and finished pods; non-preemptible
// workloads; min-runtime; 1-3 cycles of all five actions or a subset. Each case first draws a
// feature profile (the tags it records), then builds objects that KAI's CRDs admit, running pods
// packed without over-commit. Case i of seed s depends only on (s, i).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "case.h"

namespace quotient::kaidiff {

struct GeneratorOptions {
  // Features the generator never turns on (their tag names, e.g. "min-subgroup"): how a known
  // difference can keep its cases out of the corpus.
  std::set<std::string> disabled;
};

// Every feature tag the generator can record, sorted.
const std::vector<std::string>& FeatureTags();

Case GenerateCase(uint64_t seed, int index, const GeneratorOptions& options = {});

}  // namespace quotient::kaidiff
