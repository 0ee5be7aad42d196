// One case through both schedulers and the verdict on it: the case's files are written to a
// folder, Quotient runs once and the oracle `runs` times (KAI's own variation), the outcomes are
// judged (compare.h); a divergence gets `confirm_runs` more oracle runs and is judged again on
// all of them, and one that a documented difference recognises is set apart: from the case and
// the reports, or, for an entry with `rerun-with`, because KAI rerun with those flags decides as
// Quotient did.
// Errors: Quotient failing where KAI answers is a divergence of class quotient-error; the oracle
// failing on every run leaves the case out (oracle-error), as it says nothing about Quotient.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "case.h"
#include "compare.h"
#include "engines.h"
#include "known_differences.h"

namespace quotient::kaidiff {

enum class Status { kAgree, kTieClass, kDiverge, kKnown, kOracleError };

const char* StatusName(Status s);

struct CaseResult {
  Status status = Status::kAgree;
  Verdict verdict;
  std::string known_id;  // kKnown
  std::string error;     // kOracleError, or the quotient-error detail
  std::optional<nlohmann::json> quotient_report;
  std::vector<nlohmann::json> kai_reports;

  // The class a divergence (or a known one) is filed under; "" for agreement.
  std::string Class() const;
};

class Evaluator {
 public:
  // `confirm_runs`: a case that diverges after `runs` oracle runs gets that many more, and is
  // judged again on all of them. KAI's order of queues depends on Go's map order (queues tied
  // on every rule sit where they were pushed, job_order_by_queue.go), so a variant can come
  // up in most runs and still not be KAI's only answer.
  Evaluator(Engine& quotient, Engine& oracle, int runs, const KnownDifferences& known,
            int confirm_runs = 0)
      : quotient_(quotient),
        oracle_(oracle),
        runs_(runs),
        confirm_runs_(confirm_runs),
        known_(known) {}

  // Cases in a batch: the oracle gets every request first, then Quotient runs while the oracle
  // works. Each case's files go to dirs[i].
  std::vector<CaseResult> EvaluateAll(const std::vector<Case>& cases,
                                      const std::vector<std::filesystem::path>& dirs);
  CaseResult Evaluate(const Case& c, const std::filesystem::path& dir);

  // The verdict from answers already in hand (also for cases that are not generated, c = null).
  CaseResult Judge(const Case* c, const RunAnswer& quotient,
                   const std::vector<RunAnswer>& kai) const;

  int runs() const { return runs_; }
  int confirm_runs() const { return confirm_runs_; }

 private:
  void Confirm(const std::vector<Case>& cases, const std::vector<std::filesystem::path>& dirs,
               const std::vector<RunAnswer>& q, std::vector<std::vector<RunAnswer>>& kai,
               std::vector<CaseResult>& out);
  void RecogniseByRerun(const std::vector<Case>& cases,
                        const std::vector<std::filesystem::path>& dirs,
                        const std::vector<RunAnswer>& q, std::vector<CaseResult>& out);

  Engine& quotient_;
  Engine& oracle_;
  int runs_;
  int confirm_runs_;
  const KnownDifferences& known_;
};

}  // namespace quotient::kaidiff
