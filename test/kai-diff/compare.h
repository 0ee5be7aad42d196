// The comparison of two outcomes and the verdict on one case.
//
// Compare() walks the outcomes in causal order and returns the first difference:
//   1. cycle-count, queue-set (a queue in one report only);
//   2. the decisions of every cycle but the last, cycle by cycle, action by action in KAI's order,
//      evictions before pipelines before binds (classes eviction-set, pipeline-set, bind-set),
//      then gpu-sharing (which of the cycle's placed pods share a device);
//   3. fair-share-gpu, fair-share-cpu, fair-share-memory (the report's fair share is the one
//      computed when the last cycle opened: it follows the earlier cycles, and leads the last);
//   4. the last cycle's decisions as in 2;
//   5. gpu-sharing after the last cycle, requested and allocated (both as at the end of the last
//      cycle), pod-set, pod-status (the status, and the node of a Running, Bound, Pipelined or
//      Releasing pod), pod-group-status.
// Numbers agree when |a - b| <= 0.01 * max(|a|, |b|) (1% relative), or for gpu also when
// |a - b| <= 0.01 (absolute, hundredths of a device); null (unlimited) agrees only with null.
//
// Judge() gives the verdict on Quotient's outcome against KAI's R runs of the same case: agree
// when it matches any run exactly; when KAI's runs differ among themselves (KAI breaks some ties
// by Go map order) and Quotient matches none, tie-class when Quotient's class signature (per
// cycle and queue the number of binds, evictions and pipelines; every pod group's status)
// equals some run's; otherwise diverge, classified by the first difference from KAI's first run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "outcome.h"

namespace quotient::kaidiff {

struct Difference {
  std::string cls;     // e.g. "fair-share-gpu", "eviction-set"
  std::string action;  // for decision classes: the action whose set differs
  int cycle = -1;      // for decision classes
  std::string detail;  // one line: what each side had
};

std::optional<Difference> Compare(const Outcome& quotient, const Outcome& kai);

// The classes Compare() can return, in its order.
const std::vector<std::string>& DifferenceClasses();

// True when a and b agree within the tolerance above (resource 0 = gpu, 1 = cpu, 2 = memory).
bool AmountsAgree(const std::optional<double>& a, const std::optional<double>& b, size_t resource);

enum class Result { kAgree, kTieClass, kDiverge };

struct Verdict {
  Result result = Result::kAgree;
  Difference first;      // kDiverge: the first difference from KAI's first run
  int kai_variants = 1;  // distinct outcomes among KAI's runs
  int matched_run = -1;  // kAgree: which run Quotient matched
};

Verdict Judge(const Outcome& quotient, const std::vector<Outcome>& kai);

// The class signature used for ties (exposed for tests).
std::string ClassSignature(const Outcome& outcome);

}  // namespace quotient::kaidiff
