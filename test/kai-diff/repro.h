// A shrunk divergence written as a scenario folder (test/scenarios' layout, without
// expected.json): cluster.yaml, config.yaml when the case has one, args.txt ($SCENARIO for the
// folder), kai-output.json (KAI's first run) and quotient-output.json, and a README.md saying
// what differs, what KAI did and what Quotient did, where it came from (seed, case number, tags)
// and how to run it.
#pragma once

#include <filesystem>
#include <string>

#include "case.h"
#include "evaluate.h"
#include "shrink.h"

namespace quotient::kaidiff {

struct ReproInfo {
  const Case* original = nullptr;  // as generated
  ShrinkStats stats;
};

void WriteRepro(const std::filesystem::path& dir, const Case& shrunk, const CaseResult& result,
                const ReproInfo& info);

// "Cycle 0: reclaim evict ml/b-4 (n1), ...", one line per cycle, for a README.
std::string DecisionSummary(const nlohmann::json& report);

}  // namespace quotient::kaidiff
