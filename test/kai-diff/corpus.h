// The corpus run: cases first .. first+count-1 of a seed, generated, written to a work folder
// in chunks, judged (evaluate.h) and tallied (tally.h); each divergence appended to a JSON-lines
// file when asked; the first divergences of each class shrunk (shrink.h) into reproducers under
// the repro folder. The exit status says whether agreement reached the threshold.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>

#include "evaluate.h"
#include "generator.h"
#include "known_differences.h"

namespace quotient::kaidiff {

struct CorpusOptions {
  uint64_t seed = 1;
  int first = 0;
  int count = 100;
  int chunk = 20;  // cases handed to the oracle at once
  std::filesystem::path work_dir;
  bool keep_work = false;
  std::optional<std::filesystem::path> repro_dir;
  int shrink_per_class = 1;
  int shrink_budget = 250;  // predicate tests per reproducer
  std::optional<std::filesystem::path> divergences_file;
  double threshold_percent = 0;
  double max_oracle_error_percent = 5;
  GeneratorOptions generator;
};

// Prints the table on `out` (and progress on `log`); returns 0 when agreement >= threshold and
// oracle errors stay within their limit, else 1.
int RunCorpus(const CorpusOptions& options, Evaluator& evaluator, std::ostream& out,
              std::ostream& log);

}  // namespace quotient::kaidiff
