#include "evaluate.h"

#include <algorithm>

namespace quotient::kaidiff {

const char* StatusName(Status s) {
  switch (s) {
    case Status::kAgree:
      return "agree";
    case Status::kTieClass:
      return "tie-class";
    case Status::kDiverge:
      return "diverge";
    case Status::kKnown:
      return "known";
    case Status::kOracleError:
      return "oracle-error";
  }
  return "?";
}

std::string CaseResult::Class() const {
  return status == Status::kDiverge || status == Status::kKnown ? verdict.first.cls : "";
}

CaseResult Evaluator::Judge(const Case* c, const RunAnswer& quotient,
                            const std::vector<RunAnswer>& kai) const {
  CaseResult r;
  r.quotient_report = quotient.report;
  std::vector<Outcome> kai_outcomes;
  std::string oracle_error;
  for (const RunAnswer& a : kai) {
    if (!a.report) {
      oracle_error = a.error;
      continue;
    }
    try {
      kai_outcomes.push_back(ReadOutcome(*a.report));
      r.kai_reports.push_back(*a.report);
    } catch (const nlohmann::json::exception& e) {
      oracle_error = std::string("unreadable oracle report: ") + e.what();
    }
  }
  if (kai_outcomes.empty()) {
    r.status = Status::kOracleError;
    r.error = oracle_error.empty() ? "no oracle answer" : oracle_error;
    return r;
  }
  std::optional<Outcome> mine;
  if (quotient.report) {
    try {
      mine = ReadOutcome(*quotient.report);
    } catch (const nlohmann::json::exception& e) {
      r.error = std::string("unreadable quotient report: ") + e.what();
    }
  } else {
    r.error = quotient.error;
  }
  if (!mine) {
    r.status = Status::kDiverge;
    r.verdict.result = Result::kDiverge;
    r.verdict.first = Difference{"quotient-error", "", -1, r.error};
  } else {
    r.verdict = kaidiff::Judge(*mine, kai_outcomes);
    r.status = r.verdict.result == Result::kAgree      ? Status::kAgree
               : r.verdict.result == Result::kTieClass ? Status::kTieClass
                                                       : Status::kDiverge;
  }
  if (r.status == Status::kDiverge && c != nullptr) {
    const Reports reports{mine ? &*mine : nullptr, &kai_outcomes.front()};
    if (std::optional<std::string> id = known_.Recognise(*c, r.verdict.first, reports)) {
      r.status = Status::kKnown;
      r.known_id = *id;
    }
  }
  return r;
}

std::vector<CaseResult> Evaluator::EvaluateAll(const std::vector<Case>& cases,
                                               const std::vector<std::filesystem::path>& dirs) {
  std::vector<RunRequest> mine, theirs;
  for (size_t i = 0; i < cases.size(); ++i) {
    WriteCaseFiles(cases[i], dirs[i]);
    const std::vector<std::string> args = ScheduleArgs(cases[i], dirs[i].string());
    mine.push_back({cases[i].Id(), args});
    for (int run = 0; run < runs_; ++run) {
      theirs.push_back({cases[i].Id() + "#" + std::to_string(run), args});
    }
  }
  oracle_.Submit(theirs);
  const std::vector<RunAnswer> q = quotient_.Run(mine);
  const std::vector<RunAnswer> k = oracle_.Collect();
  std::vector<std::vector<RunAnswer>> kai(cases.size());
  std::vector<CaseResult> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto first = k.begin() + static_cast<std::ptrdiff_t>(i) * runs_;
    kai[i].assign(first, first + runs_);
    out.push_back(Judge(&cases[i], q[i], kai[i]));
  }
  if (confirm_runs_ > 0) Confirm(cases, dirs, q, kai, out);
  RecogniseByRerun(cases, dirs, q, out);
  return out;
}

void Evaluator::Confirm(const std::vector<Case>& cases,
                        const std::vector<std::filesystem::path>& dirs,
                        const std::vector<RunAnswer>& q, std::vector<std::vector<RunAnswer>>& kai,
                        std::vector<CaseResult>& out) {
  // Divergences (documented ones too) get more oracle runs: a KAI variant that the first runs
  // did not show may be Quotient's answer.
  std::vector<size_t> again;
  std::vector<RunRequest> more;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (out[i].status != Status::kDiverge && out[i].status != Status::kKnown) continue;
    again.push_back(i);
    const std::vector<std::string> args = ScheduleArgs(cases[i], dirs[i].string());
    for (int run = 0; run < confirm_runs_; ++run) {
      more.push_back({cases[i].Id() + "#" + std::to_string(runs_ + run), args});
    }
  }
  if (again.empty()) return;
  oracle_.Submit(more);
  const std::vector<RunAnswer> extra = oracle_.Collect();
  for (size_t j = 0; j < again.size(); ++j) {
    const size_t i = again[j];
    const auto first = extra.begin() + static_cast<std::ptrdiff_t>(j) * confirm_runs_;
    kai[i].insert(kai[i].end(), first, first + confirm_runs_);
    out[i] = Judge(&cases[i], q[i], kai[i]);
  }
}

void Evaluator::RecogniseByRerun(const std::vector<Case>& cases,
                                 const std::vector<std::filesystem::path>& dirs,
                                 const std::vector<RunAnswer>& q, std::vector<CaseResult>& out) {
  // A divergence still unexplained is run through the oracle again with each rerun entry's
  // flags; when every such run is answered and Quotient matches them (exactly or a class of
  // them), the divergence is that entry's. Numbering goes on after the first and confirmation
  // runs, so that each run of a case keeps an id of its own.
  int next_run = runs_ + confirm_runs_;
  for (const KnownDifference* k : known_.Reruns()) {
    std::vector<size_t> again;
    std::vector<RunRequest> requests;
    for (size_t i = 0; i < cases.size(); ++i) {
      if (out[i].status != Status::kDiverge || !q[i].report) continue;
      again.push_back(i);
      std::vector<std::string> args = ScheduleArgs(cases[i], dirs[i].string());
      args.insert(args.end(), k->rerun_with.begin(), k->rerun_with.end());
      for (int run = 0; run < runs_; ++run) {
        requests.push_back({cases[i].Id() + "#" + std::to_string(next_run + run), args});
      }
    }
    next_run += runs_;
    if (again.empty()) continue;
    oracle_.Submit(requests);
    const std::vector<RunAnswer> answers = oracle_.Collect();
    for (size_t j = 0; j < again.size(); ++j) {
      const size_t i = again[j];
      const auto first = answers.begin() + static_cast<std::ptrdiff_t>(j) * runs_;
      const std::vector<RunAnswer> rerun(first, first + runs_);
      if (std::any_of(rerun.begin(), rerun.end(), [](const RunAnswer& a) { return !a.report; })) {
        continue;
      }
      const CaseResult judged = Judge(nullptr, q[i], rerun);
      if (judged.status == Status::kAgree || judged.status == Status::kTieClass) {
        out[i].status = Status::kKnown;
        out[i].known_id = k->id;
      }
    }
  }
}

CaseResult Evaluator::Evaluate(const Case& c, const std::filesystem::path& dir) {
  return EvaluateAll({c}, {dir}).front();
}

}  // namespace quotient::kaidiff
