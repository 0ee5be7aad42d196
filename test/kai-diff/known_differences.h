// Documented differences: test/kai-diff/known-differences.yaml lists the ways Quotient is known
// and accepted to decide differently from KAI v0.17.0, each pointing at its section of
// docs/kai-differences.md. An entry recognises its divergences declaratively (`match`: the
// first-difference classes, actions and case tags that must all hold), by a predicate in code
// keyed by its id (CodePredicates() in known_differences.cc, for what tags cannot say), or keeps
// its cases out of the corpus altogether (`exclude-features`: generator features never turned
// on), or by a rerun of the oracle with flags of its own (`rerun-with`). A divergence an entry
// recognises is counted under that id and left out of the agreement.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "case.h"
#include "compare.h"
#include "outcome.h"

namespace quotient::kaidiff {

struct KnownDifference {
  std::string id, description, section;
  std::vector<std::string> classes, actions, tags;  // `match`; empty = any
  bool has_match = false;
  std::vector<std::string> exclude_features;
  // `rerun-with`: oracle flags; a divergence is this entry's when KAI, run again with them,
  // decides as Quotient did (Evaluator). For differences in arithmetic, not in rules.
  std::vector<std::string> rerun_with;
};

// What a predicate in code may read besides the case and its first difference: the two reports
// (absent where the caller has none, as in a test of classes and tags).
struct Reports {
  const Outcome* quotient = nullptr;
  const Outcome* kai = nullptr;  // KAI's first run, the one the first difference is taken from
};

using KnownPredicate = std::function<bool(const Case&, const Difference&, const Reports&)>;

// Predicates in code, by the id of the entry they serve.
const std::map<std::string, KnownPredicate>& CodePredicates();

class KnownDifferences {
 public:
  KnownDifferences() = default;
  explicit KnownDifferences(std::vector<KnownDifference> entries,
                            std::map<std::string, KnownPredicate> predicates = CodePredicates());

  // Reads the YAML file; throws std::runtime_error naming the problem (a missing id, section or
  // description, an entry with no way to recognise its divergences, an unknown class).
  static KnownDifferences Load(const std::filesystem::path& path);

  // The id of the first entry that recognises this divergence.
  std::optional<std::string> Recognise(const Case& c, const Difference& d,
                                       const Reports& reports = {}) const;
  // Entries with `rerun-with`, in the file's order.
  std::vector<const KnownDifference*> Reruns() const;
  // Features the generator must leave out.
  std::set<std::string> ExcludedFeatures() const;
  const std::vector<KnownDifference>& entries() const { return entries_; }

 private:
  std::vector<KnownDifference> entries_;
  std::map<std::string, KnownPredicate> predicates_;
};

}  // namespace quotient::kaidiff
