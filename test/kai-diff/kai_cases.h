// The translated KAI unit-test cases (every folder under test/kai-cases/ that holds an args.txt:
// cluster.yaml, args.txt with
// $SCENARIO and $ROOT, optional config.yaml, kai-expected.json, README.md). Each runs through
// Quotient and through the oracle; both reports are matched against kai-expected.json with the
// scenario tests' subset rule (objects match on the keys the expectation lists, arrays element by
// element, scalars exactly), and Quotient is judged against the oracle as in the corpus. The
// table groups the cases by the KAI test file they come from: the README's "KAI file: `path`"
// line, else the first `*_test.go` path it names, else the folder's name.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "evaluate.h"

namespace quotient::kaidiff {

// Appends to `errors` every place where `actual` does not contain `expected`.
void MatchSubset(const nlohmann::json& expected, const nlohmann::json& actual,
                 const std::string& path, std::vector<std::string>& errors);

struct KaiCasesOptions {
  std::filesystem::path cases_dir, repo_root;
  double threshold_percent = 0;  // of cases where Quotient matches kai-expected.json
  bool verbose = false;
};

int RunKaiCases(const KaiCasesOptions& options, Evaluator& evaluator, Engine& quotient,
                Engine& oracle, std::ostream& out);

}  // namespace quotient::kaidiff
