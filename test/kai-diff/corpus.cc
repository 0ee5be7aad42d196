#include "corpus.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <map>

#include "repro.h"
#include "shrink.h"
#include "tally.h"

namespace quotient::kaidiff {
namespace {

namespace fs = std::filesystem;

struct ToShrink {
  Case c;
  CaseResult result;
};

nlohmann::json DivergenceLine(const Case& c, const CaseResult& r) {
  return {{"id", c.Id()},
          {"seed", c.seed},
          {"index", c.index},
          {"status", StatusName(r.status)},
          {"class", r.Class()},
          {"action", r.verdict.first.action},
          {"cycle", r.verdict.first.cycle},
          {"detail", r.verdict.first.detail},
          {"known", r.known_id},
          {"kaiVariants", r.verdict.kai_variants},
          {"tags", c.tags}};
}

void ShrinkAll(const CorpusOptions& o, Evaluator& evaluator, const std::vector<ToShrink>& queue,
               std::ostream& log) {
  for (const ToShrink& item : queue) {
    const std::string cls = item.result.Class();
    const std::string action = item.result.verdict.first.action;
    const fs::path scratch = o.work_dir / ("shrink-" + item.c.Id());
    int attempt = 0;
    CaseResult last = item.result;
    auto test = [&](const Case& candidate) {
      const CaseResult r = evaluator.Evaluate(candidate, scratch / std::to_string(attempt++));
      const bool same =
          r.status == Status::kDiverge && r.Class() == cls && r.verdict.first.action == action;
      if (same) last = r;
      return same;
    };
    ReproInfo info{&item.c, {}};
    const Case shrunk = Shrink(item.c, test, o.shrink_budget, &info.stats);
    if (info.stats.accepted == 0) last = item.result;
    const std::string name =
        fmt::format("{}{}-{}", cls, action.empty() ? "" : "-" + action, item.c.Id());
    WriteRepro(*o.repro_dir / name, shrunk, last, info);
    log << fmt::format("kai_diff: {} shrunk in {} tests -> {}\n", item.c.Id(), info.stats.tests,
                       (*o.repro_dir / name).string());
    if (!o.keep_work) fs::remove_all(scratch);
  }
}

}  // namespace

int RunCorpus(const CorpusOptions& o, Evaluator& evaluator, std::ostream& out, std::ostream& log) {
  const auto start = std::chrono::steady_clock::now();
  fs::create_directories(o.work_dir);
  std::optional<std::ofstream> divergences;
  if (o.divergences_file) divergences.emplace(*o.divergences_file);
  Tally tally;
  std::vector<ToShrink> to_shrink;
  std::map<std::string, int> queued_per_class;
  const int end = o.first + o.count;
  for (int at = o.first; at < end; at += o.chunk) {
    std::vector<Case> cases;
    std::vector<fs::path> dirs;
    for (int i = at; i < std::min(end, at + o.chunk); ++i) {
      cases.push_back(GenerateCase(o.seed, i, o.generator));
      dirs.push_back(o.work_dir / cases.back().Id());
    }
    const std::vector<CaseResult> results = evaluator.EvaluateAll(cases, dirs);
    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseResult& r = results[i];
      tally.Add(cases[i].tags, r);
      if (divergences && r.status != Status::kAgree) {
        *divergences << DivergenceLine(cases[i], r).dump() << "\n";
      }
      const std::string key = r.Class() + "/" + r.verdict.first.action;
      if (o.repro_dir && r.status == Status::kDiverge &&
          queued_per_class[key]++ < o.shrink_per_class) {
        to_shrink.push_back({cases[i], r});
      }
      if (!o.keep_work) fs::remove_all(dirs[i]);
    }
    log << fmt::format("kai_diff: {}/{} cases, agreement so far {:.1f}%\n",
                       std::min(end, at + o.chunk) - o.first, o.count, tally.AgreementPercent());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.repro_dir) ShrinkAll(o, evaluator, to_shrink, log);
  out << fmt::format(
      "KAI-DIFF: {} cases (seed {}, cases {}..{}), KAI run {} times each ({} more for a "
      "divergence), {:.1f} s\n",
      o.count, o.seed, o.first, end - 1, evaluator.runs(), evaluator.confirm_runs(), seconds);
  tally.Print(out, o.threshold_percent);
  const double error_percent =
      tally.total() == 0 ? 100.0 : 100.0 * tally.oracle_errors() / tally.total();
  if (error_percent > o.max_oracle_error_percent) {
    out << fmt::format("FAIL: {:.1f}% of the cases had no answer from the oracle (limit {:.1f}%)\n",
                       error_percent, o.max_oracle_error_percent);
    return 1;
  }
  return tally.judged() > 0 && tally.AgreementPercent() + 1e-9 >= o.threshold_percent ? 0 : 1;
}

}  // namespace quotient::kaidiff
