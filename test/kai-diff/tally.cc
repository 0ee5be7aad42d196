#include "tally.h"

#include <fmt/format.h>

#include <algorithm>

namespace quotient::kaidiff {
namespace {

std::string Percent(int part, int whole) {
  return whole == 0 ? "-" : fmt::format("{:.1f}%", 100.0 * part / whole);
}

}  // namespace

void Tally::Add(const std::vector<std::string>& tags, const CaseResult& r) {
  if (r.verdict.kai_variants > 1) ++kai_varied_;
  std::vector<std::string> keys = tags;
  if (keys.empty()) keys.push_back("(none)");
  for (const std::string& tag : keys) {
    Counts& t = by_tag_[tag];
    ++t.cases;
    switch (r.status) {
      case Status::kAgree:
        ++t.agree;
        break;
      case Status::kTieClass:
        ++t.tie;
        break;
      case Status::kDiverge:
        ++t.diverge;
        break;
      case Status::kKnown:
        ++t.known;
        break;
      case Status::kOracleError:
        ++t.error;
        break;
    }
  }
  switch (r.status) {
    case Status::kAgree:
      ++agree_;
      break;
    case Status::kTieClass:
      ++tie_;
      break;
    case Status::kDiverge:
      ++diverge_;
      ++by_class_[r.verdict.first.cls];
      if (!r.verdict.first.action.empty()) {
        ++by_class_action_[r.verdict.first.cls][r.verdict.first.action];
      }
      break;
    case Status::kKnown:
      ++known_;
      ++by_known_[r.known_id];
      break;
    case Status::kOracleError:
      ++oracle_error_;
      ++error_samples_[r.error.substr(0, 80)];
      break;
  }
}

double Tally::AgreementPercent() const {
  return judged() == 0 ? 0.0 : 100.0 * (agree_ + tie_) / judged();
}

void Tally::Print(std::ostream& out, double threshold) const {
  out << fmt::format("{:<22}{:>7}\n", "RESULT", "CASES");
  out << fmt::format("{:<22}{:>7}\n", "agree (exact)", agree_);
  out << fmt::format("{:<22}{:>7}   KAI's runs differed, Quotient matched a class\n",
                     "agree (tie-class)", tie_);
  out << fmt::format("{:<22}{:>7}\n", "diverge", diverge_);
  out << fmt::format("{:<22}{:>7}   left out of the agreement\n", "known difference", known_);
  out << fmt::format("{:<22}{:>7}   left out of the agreement\n", "oracle error", oracle_error_);
  out << fmt::format("KAI's own runs differed from each other on {} cases\n", kai_varied_);
  out << fmt::format("AGREEMENT {} ({} of {} judged); threshold {:.1f}%: {}\n",
                     Percent(agree_ + tie_, judged()), agree_ + tie_, judged(), threshold,
                     judged() > 0 && AgreementPercent() + 1e-9 >= threshold ? "PASS" : "FAIL");
  if (!by_class_.empty()) {
    std::vector<std::pair<std::string, int>> classes(by_class_.begin(), by_class_.end());
    std::stable_sort(classes.begin(), classes.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    out << fmt::format("\nDIVERGENCES BY CLASS (first difference)\n{:<20}{:>7}{:>8}  {}\n", "CLASS",
                       "CASES", "SHARE", "BY ACTION");
    for (const auto& [cls, n] : classes) {
      std::string actions;
      auto it = by_class_action_.find(cls);
      if (it != by_class_action_.end()) {
        for (const auto& [action, k] : it->second) {
          actions += (actions.empty() ? "" : ", ") + fmt::format("{} {}", action, k);
        }
      }
      out << fmt::format("{:<20}{:>7}{:>8}  {}\n", cls, n, Percent(n, diverge_), actions);
    }
  }
  if (!by_known_.empty()) {
    out << fmt::format("\nKNOWN DIFFERENCES (docs/kai-differences.md)\n{:<40}{:>7}\n", "ID",
                       "CASES");
    for (const auto& [id, n] : by_known_) out << fmt::format("{:<40}{:>7}\n", id, n);
  }
  if (!error_samples_.empty()) {
    out << "\nORACLE ERRORS\n";
    for (const auto& [text, n] : error_samples_) out << fmt::format("{:>5}  {}\n", n, text);
  }
  out << fmt::format("\nBY FEATURE TAG\n{:<20}{:>7}{:>7}{:>5}{:>9}{:>7}{:>7}{:>11}\n", "TAG",
                     "CASES", "AGREE", "TIE", "DIVERGE", "KNOWN", "ERROR", "AGREEMENT");
  for (const auto& [tag, t] : by_tag_) {
    out << fmt::format("{:<20}{:>7}{:>7}{:>5}{:>9}{:>7}{:>7}{:>11}\n", tag, t.cases, t.agree, t.tie,
                       t.diverge, t.known, t.error,
                       Percent(t.agree + t.tie, t.agree + t.tie + t.diverge));
  }
}

}  // namespace quotient::kaidiff
