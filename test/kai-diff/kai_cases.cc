#include "kai_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace quotient::kaidiff {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Args(const fs::path& dir, const fs::path& root) {
  std::vector<std::string> out;
  std::stringstream ss(ReadText(dir / "args.txt"));
  for (std::string line; std::getline(ss, line);) {
    if (line.empty() || line[0] == '#') continue;
    for (const auto& [token, value] :
         {std::pair<std::string, std::string>{"$SCENARIO", dir}, {"$ROOT", root.string()}}) {
      for (size_t at = line.find(token); at != std::string::npos; at = line.find(token)) {
        line.replace(at, token.size(), value);
      }
    }
    out.push_back(line);
  }
  if (std::find(out.begin(), out.end(), "-o") == out.end()) out.insert(out.end(), {"-o", "json"});
  return out;
}

// The README's "KAI file: `path`" line (test/kai-translate writes one), else its first
// `*_test.go` path, else the folder's name.
std::string KaiFile(const fs::path& dir) {
  static const std::regex kKaiFileLine(R"(KAI file: `([^`]+)`)");
  static const std::regex kTestFile(R"([A-Za-z0-9_./-]+_test\.go)");
  const std::string readme = ReadText(dir / "README.md");
  std::smatch m;
  if (std::regex_search(readme, m, kKaiFileLine)) return m[1].str();
  if (std::regex_search(readme, m, kTestFile)) return m.str();
  return dir.filename().string();
}

struct Row {
  int cases = 0, quotient_expected = 0, oracle_expected = 0, agree = 0, oracle_error = 0;
};

bool Matches(const json& expected, const std::optional<json>& report) {
  if (!report) return false;
  std::vector<std::string> errors;
  MatchSubset(expected, *report, "$", errors);
  return errors.empty();
}

std::string Cell(int n, int of) {
  return of == 0 ? "-" : fmt::format("{} ({:.0f}%)", n, 100.0 * n / of);
}

}  // namespace

void MatchSubset(const json& expected, const json& actual, const std::string& path,
                 std::vector<std::string>& errors) {
  if (expected.is_object()) {
    if (!actual.is_object()) {
      errors.push_back(path + ": expected an object");
      return;
    }
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (!actual.contains(it.key())) {
        errors.push_back(path + "." + it.key() + ": missing");
        continue;
      }
      MatchSubset(it.value(), actual.at(it.key()), path + "." + it.key(), errors);
    }
  } else if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      errors.push_back(path + ": expected " + std::to_string(expected.size()) + " elements");
      return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      MatchSubset(expected[i], actual[i], path + "[" + std::to_string(i) + "]", errors);
    }
  } else if (expected != actual) {
    errors.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
  }
}

int RunKaiCases(const KaiCasesOptions& o, Evaluator& evaluator, Engine& quotient, Engine& oracle,
                std::ostream& out) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::recursive_directory_iterator(o.cases_dir)) {
    if (entry.is_directory() && fs::exists(entry.path() / "args.txt")) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  std::map<std::string, Row> rows;
  Row total;
  for (const fs::path& dir : dirs) {
    const std::vector<std::string> args = Args(dir, o.repo_root);
    const std::string id = fs::relative(dir, o.cases_dir).string();
    std::vector<RunRequest> theirs;
    for (int r = 0; r < evaluator.runs(); ++r) {
      theirs.push_back({id + "#" + std::to_string(r), args});
    }
    oracle.Submit(theirs);
    const RunAnswer mine = quotient.Run({{id, args}}).front();
    std::vector<RunAnswer> kai = oracle.Collect();
    CaseResult result = evaluator.Judge(nullptr, mine, kai);
    if (result.status == Status::kDiverge && evaluator.confirm_runs() > 0) {
      std::vector<RunRequest> more;
      for (int r = 0; r < evaluator.confirm_runs(); ++r) {
        more.push_back({id + "#" + std::to_string(evaluator.runs() + r), args});
      }
      oracle.Submit(more);
      for (RunAnswer& a : oracle.Collect()) kai.push_back(std::move(a));
      result = evaluator.Judge(nullptr, mine, kai);
    }
    json expected = json::object();
    if (fs::exists(dir / "kai-expected.json"))
      expected = json::parse(ReadText(dir / "kai-expected.json"));
    const bool q_ok = Matches(expected, mine.report);
    bool k_ok = false;
    for (const RunAnswer& a : kai) k_ok = k_ok || Matches(expected, a.report);
    for (Row* row : {&rows[KaiFile(dir)], &total}) {
      ++row->cases;
      row->quotient_expected += q_ok ? 1 : 0;
      row->oracle_expected += k_ok ? 1 : 0;
      row->agree += result.status == Status::kAgree || result.status == Status::kTieClass ? 1 : 0;
      row->oracle_error += result.status == Status::kOracleError ? 1 : 0;
    }
    if (o.verbose && (!q_ok || result.status == Status::kDiverge)) {
      out << fmt::format("{}: quotient {} kai-expected.json; {}{}\n",
                         fs::relative(dir, o.cases_dir).string(),
                         q_ok ? "matches" : "does not match", StatusName(result.status),
                         result.status == Status::kDiverge
                             ? " " + result.verdict.first.cls + ": " + result.verdict.first.detail
                             : "");
    }
  }
  size_t width = 14;
  for (const auto& [file, row] : rows) width = std::max(width, file.size() + 2);
  out << fmt::format("KAI CASES: {} folders in {}\n", total.cases, o.cases_dir.string());
  out << fmt::format("{:<{}}{:>6}{:>19}{:>17}{:>17}{:>8}\n", "KAI TEST FILE", width, "CASES",
                     "QUOTIENT=EXPECTED", "ORACLE=EXPECTED", "QUOTIENT=ORACLE", "ERRORS");
  auto print = [&](const std::string& name, const Row& r) {
    out << fmt::format("{:<{}}{:>6}{:>19}{:>17}{:>17}{:>8}\n", name, width, r.cases,
                       Cell(r.quotient_expected, r.cases), Cell(r.oracle_expected, r.cases),
                       Cell(r.agree, r.cases - r.oracle_error), r.oracle_error);
  };
  for (const auto& [file, row] : rows) print(file, row);
  print("TOTAL", total);
  const double share = total.cases == 0 ? 0 : 100.0 * total.quotient_expected / total.cases;
  out << fmt::format(
      "Quotient matches kai-expected.json in {:.1f}% of the cases; threshold "
      "{:.1f}%: {}\n",
      share, o.threshold_percent,
      total.cases > 0 && share + 1e-9 >= o.threshold_percent ? "PASS" : "FAIL");
  return total.cases > 0 && share + 1e-9 >= o.threshold_percent ? 0 : 1;
}

}  // namespace quotient::kaidiff
