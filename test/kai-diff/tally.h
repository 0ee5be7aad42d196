// The counts behind kai_diff's table: results overall (agree exactly, agree as a tie class,
// diverge, known difference, oracle error), divergences by class (and action) and by known
// difference, and per feature tag. Agreement = (agree + tie-class) / (agree + tie-class +
// diverge): known differences and oracle errors are left out of it and printed apart.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "case.h"
#include "evaluate.h"

namespace quotient::kaidiff {

class Tally {
 public:
  void Add(const std::vector<std::string>& tags, const CaseResult& r);
  void Print(std::ostream& out, double threshold_percent) const;

  int judged() const { return agree_ + tie_ + diverge_; }
  int oracle_errors() const { return oracle_error_; }
  int total() const { return judged() + known_ + oracle_error_; }
  double AgreementPercent() const;

 private:
  struct Counts {
    int cases = 0, agree = 0, tie = 0, diverge = 0, known = 0, error = 0;
  };
  int agree_ = 0, tie_ = 0, diverge_ = 0, known_ = 0, oracle_error_ = 0, kai_varied_ = 0;
  std::map<std::string, int> by_class_;
  std::map<std::string, std::map<std::string, int>> by_class_action_;
  std::map<std::string, int> by_known_;
  std::map<std::string, Counts> by_tag_;
  std::map<std::string, int> error_samples_;  // oracle error text (first 80 chars) -> count
};

}  // namespace quotient::kaidiff
