// known-differences.yaml: the repository's file loads; entries recognise divergences by class,
// action and tags, or by a predicate in code; bad entries are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "known_differences.h"

namespace quotient::kaidiff {
namespace {

namespace fs = std::filesystem;

fs::path Write(const std::string& text) {
  const fs::path path =
      fs::temp_directory_path() / ("kai-diff-known-test-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(path) << text;
  return path;
}

TEST(KnownDifferencesTest, RepositoryFileLoads) {
  EXPECT_NO_THROW(KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES));
}

TEST(KnownDifferencesTest, RecognisesByClassAndTags) {
  const KnownDifferences known = KnownDifferences::Load(Write(R"(
differences:
- id: negative-weight-share
  description: negative over-quota weights
  section: docs/kai-differences.md#negative-weights
  match: {classes: [fair-share-gpu, fair-share-cpu], tags: [negative-weight]}
- id: reclaim-order
  description: reclaim victims in another order
  section: docs/kai-differences.md#reclaim-order
  match: {classes: [eviction-set], actions: [reclaim]}
  exclude-features: [min-subgroup]
)"));
  Case c;
  c.tags = {"elastic", "negative-weight"};
  EXPECT_EQ(known.Recognise(c, {"fair-share-gpu", "", -1, ""}), "negative-weight-share");
  EXPECT_FALSE(known.Recognise(c, {"fair-share-memory", "", -1, ""}).has_value());
  EXPECT_EQ(known.Recognise(c, {"eviction-set", "reclaim", 0, ""}), "reclaim-order");
  EXPECT_FALSE(known.Recognise(c, {"eviction-set", "preempt", 0, ""}).has_value());
  c.tags = {"elastic"};
  EXPECT_FALSE(known.Recognise(c, {"fair-share-gpu", "", -1, ""}).has_value());
  EXPECT_EQ(known.ExcludedFeatures(), std::set<std::string>{"min-subgroup"});
}

TEST(KnownDifferencesTest, RerunEntriesAreListedInOrder) {
  const KnownDifferences known = KnownDifferences::Load(Write(R"(
differences:
- id: rounded
  description: a tie broken by float error
  section: docs/kai-differences.md#rounded
  rerun-with: [--round-fair-shares]
- id: by-class
  description: another
  section: docs/kai-differences.md#other
  match: {classes: [bind-set]}
)"));
  ASSERT_EQ(known.Reruns().size(), 1u);
  EXPECT_EQ(known.Reruns()[0]->id, "rounded");
  EXPECT_EQ(known.Reruns()[0]->rerun_with, std::vector<std::string>{"--round-fair-shares"});
  // A rerun entry recognises nothing from the case and reports alone.
  Case c;
  EXPECT_FALSE(known.Recognise(c, {"fair-share-gpu", "", -1, ""}).has_value());
}

TEST(KnownDifferencesTest, CodePredicateKeyedById) {
  KnownDifference entry;
  entry.id = "odd-case";
  entry.description = "odd cases";
  entry.section = "docs/kai-differences.md#odd";
  KnownDifferences known({entry}, {{"odd-case", [](const Case& c, const Difference&,
                                                   const Reports&) { return c.index % 2 == 1; }}});
  Case c;
  c.index = 3;
  EXPECT_EQ(known.Recognise(c, {"bind-set", "allocate", 0, ""}), "odd-case");
  c.index = 4;
  EXPECT_FALSE(known.Recognise(c, {"bind-set", "allocate", 0, ""}).has_value());
}

// docs/kai-differences.md, "Consolidation is off under a spread placement strategy": a first
// divergence in consolidation of a case with spread placement is that difference; one of
// another action, or of a case without spread, is not.
TEST(KnownDifferencesTest, ConsolidationUnderSpreadIsTheDocumentedDifference) {
  const KnownDifferences known = KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES);
  Case c;
  c.tags = {"consolidation", "spread"};  // sorted, as the generator writes them
  EXPECT_EQ(known.Recognise(c, {"eviction-set", "consolidation", 0, ""}),
            "consolidation-off-under-spread");
  EXPECT_EQ(known.Recognise(c, {"pipeline-set", "consolidation", 0, ""}),
            "consolidation-off-under-spread");
  EXPECT_FALSE(known.Recognise(c, {"eviction-set", "reclaim", 0, ""}).has_value());
  c.tags = {"consolidation"};
  EXPECT_FALSE(known.Recognise(c, {"eviction-set", "consolidation", 0, ""}).has_value());
}

// One cycle of the five actions, with the outcomes KAI and Quotient reported for it.
struct OneCycle {
  OneCycle() {
    c.run.actions = {"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"};
    kai.cycles.resize(1);
    quotient.cycles.resize(1);
  }
  Case c;
  Outcome kai, quotient;
};

// The rule of docs/kai-differences.md, "Pods placed earlier in the same cycle are never victims":
// KAI evicting in consolidation a pod its allocate bound the same cycle is that difference; an
// eviction of a pod that was running when the cycle opened, or one Quotient made too, is not.
TEST(KnownDifferencesTest, KaiEvictingAPodPlacedThisCycleIsTheDocumentedDifference) {
  const KnownDifferences known = KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES);
  OneCycle run;
  const Case& c = run.c;
  Outcome& kai = run.kai;
  Outcome& quotient = run.quotient;
  kai.cycles[0].decisions = {{"allocate", "bind", "ml/a", "n1"},
                             {"consolidation", "evict", "ml/a", ""},
                             {"consolidation", "pipeline", "ml/a", "n2"},
                             {"consolidation", "evict", "ml/r", ""}};
  quotient.cycles[0].decisions = {{"allocate", "bind", "ml/a", "n1"}};
  const Difference d{"eviction-set", "consolidation", 0, ""};
  EXPECT_EQ(known.Recognise(c, d, {&quotient, &kai}), "placed-this-cycle-no-victim");
  // Without the reports the predicate cannot tell.
  EXPECT_FALSE(known.Recognise(c, d).has_value());
  // Quotient evicted the pod too: the difference lies elsewhere.
  quotient.cycles[0].decisions.insert({"consolidation", "evict", "ml/a", ""});
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // KAI evicted only a pod that was running when the cycle opened.
  quotient.cycles[0].decisions = {{"allocate", "bind", "ml/a", "n1"}};
  kai.cycles[0].decisions.erase({"consolidation", "evict", "ml/a", ""});
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // A pod placed by a later action is not placed earlier.
  kai.cycles[0].decisions = {{"preempt", "pipeline", "ml/b", "n1"},
                             {"reclaim", "evict", "ml/b", ""}};
  EXPECT_FALSE(known.Recognise(c, {"eviction-set", "reclaim", 0, ""}, {&quotient, &kai}));
}

// Seen in the action that placed the pod: KAI's report keeps the pipelines the cycle leaves in
// place, so allocate's pipeline of a pod KAI's reclaim then evicted is missing there; the first
// difference is allocate's pipeline set, and it is the same documented difference.
TEST(KnownDifferencesTest, KaiLosingAPipelineToItsOwnLaterEvictionIsTheDocumentedDifference) {
  const KnownDifferences known = KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES);
  OneCycle run;
  const Case& c = run.c;
  Outcome& kai = run.kai;
  Outcome& quotient = run.quotient;
  kai.cycles[0].decisions = {{"allocate", "pipeline", "ml/kept", "n1"},
                             {"reclaim", "evict", "ml/p", ""},
                             {"reclaim", "pipeline", "ml/r", "n1"}};
  quotient.cycles[0].decisions = {{"allocate", "pipeline", "ml/kept", "n1"},
                                  {"allocate", "pipeline", "ml/p", "n1"}};
  const Difference d{"pipeline-set", "allocate", 0, ""};
  EXPECT_EQ(known.Recognise(c, d, {&quotient, &kai}), "placed-this-cycle-no-victim");
  // KAI's eviction names a node: the pod was running when the cycle opened, not pipelined.
  kai.cycles[0].decisions.erase({"reclaim", "evict", "ml/p", ""});
  kai.cycles[0].decisions.insert({"reclaim", "evict", "ml/p", "n2"});
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // Evicted by an earlier action, not a later one.
  kai.cycles[0].decisions.erase({"reclaim", "evict", "ml/p", "n2"});
  kai.cycles[0].decisions.insert({"allocate", "evict", "ml/p", ""});
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // KAI pipelined a pod Quotient did not: the difference lies elsewhere.
  kai.cycles[0].decisions = {{"allocate", "pipeline", "ml/kept", "n1"},
                             {"allocate", "pipeline", "ml/other", "n1"},
                             {"reclaim", "evict", "ml/p", ""}};
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
}

// The same action placing a pod and then taking it as a victim (KAI's consolidation for a later
// job evicting the pod it pipelined for an earlier one): the eviction names no node, since the
// pod had none when the cycle opened. A pod running at the start is named with its node.
TEST(KnownDifferencesTest, KaiEvictingAPodTheSameActionPipelinedIsTheDocumentedDifference) {
  const KnownDifferences known = KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES);
  Case c;
  c.run.actions = {"consolidation"};
  Outcome kai, quotient;
  kai.cycles.resize(1);
  quotient.cycles.resize(1);
  kai.cycles[0].decisions = {{"consolidation", "pipeline", "ml/p", "n1"},
                             {"consolidation", "evict", "ml/p", ""},
                             {"consolidation", "pipeline", "ml/p", "n2"},
                             {"consolidation", "pipeline", "ml/q", "n2"}};
  quotient.cycles[0].decisions = {{"consolidation", "pipeline", "ml/p", "n1"}};
  const Difference d{"eviction-set", "consolidation", 0, ""};
  EXPECT_EQ(known.Recognise(c, d, {&quotient, &kai}), "placed-this-cycle-no-victim");
  // A pod that ran on n1 when the cycle opened, moved to n2: an ordinary victim.
  kai.cycles[0].decisions = {{"consolidation", "evict", "ml/p", "n1"},
                             {"consolidation", "pipeline", "ml/p", "n2"},
                             {"consolidation", "pipeline", "ml/q", "n1"}};
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
}

// docs/kai-differences.md, "A preemptor that fits moves no victim": KAI's reclaim, preempt or
// consolidation evicting a running pod and pipelining it elsewhere, where Quotient placed the
// same preemptor without that move, is the difference; a victim KAI leaves evicted, an eviction
// of Quotient's own, or a preemptor Quotient did not place, is not.
TEST(KnownDifferencesTest, KaiMovingAVictimThePreemptorDidNotNeedIsTheDocumentedDifference) {
  const KnownDifferences known = KnownDifferences::Load(KAI_DIFF_KNOWN_DIFFERENCES);
  Case c;
  // KAI moves victim v from n4 to n2 beside preemptor p; Quotient places p alone.
  const auto moved_for_nothing = [](const std::string& action, Outcome& kai, Outcome& quotient) {
    kai.cycles.assign(1, {});
    quotient.cycles.assign(1, {});
    kai.cycles[0].decisions = {{action, "evict", "ml/v", "n4"},
                               {action, "pipeline", "ml/v", "n2"},
                               {action, "pipeline", "ml/p", "n2"}};
    quotient.cycles[0].decisions = {{action, "pipeline", "ml/p", "n2"}};
  };
  c.run.actions = {"reclaim"};
  Outcome kai, quotient;
  moved_for_nothing("reclaim", kai, quotient);
  const Difference d{"eviction-set", "reclaim", 0, ""};
  EXPECT_EQ(known.Recognise(c, d, {&quotient, &kai}), "victim-moved-for-nothing");
  // Another action's decisions say nothing of this one's.
  EXPECT_FALSE(known.Recognise(c, {"eviction-set", "consolidation", 0, ""}, {&quotient, &kai}));
  {
    // The same in consolidation.
    Outcome kai_c, quotient_c;
    moved_for_nothing("consolidation", kai_c, quotient_c);
    EXPECT_EQ(known.Recognise(c, {"eviction-set", "consolidation", 0, ""}, {&quotient_c, &kai_c}),
              "victim-moved-for-nothing");
  }
  // Quotient did not place the preemptor: it is not the same outcome without the move.
  quotient.cycles[0].decisions = {};
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // Quotient evicted a pod KAI did not.
  quotient.cycles[0].decisions = {{"reclaim", "pipeline", "ml/p", "n2"},
                                  {"reclaim", "evict", "ml/w", "n1"}};
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
  // KAI's victim stays evicted: a real victim, not a move.
  quotient.cycles[0].decisions = {{"reclaim", "pipeline", "ml/p", "n2"}};
  kai.cycles[0].decisions.erase({"reclaim", "pipeline", "ml/v", "n2"});
  EXPECT_FALSE(known.Recognise(c, d, {&quotient, &kai}).has_value());
}

TEST(KnownDifferencesTest, RefusesIncompleteEntries) {
  EXPECT_THROW(KnownDifferences::Load(Write("differences:\n- id: x\n  description: d\n"
                                            "  section: s\n")),
               std::runtime_error);  // no way to recognise it
  EXPECT_THROW(KnownDifferences::Load(Write("differences:\n- id: x\n  section: s\n"
                                            "  match: {classes: [bind-set]}\n")),
               std::runtime_error);  // no description
  EXPECT_THROW(KnownDifferences::Load(Write("differences:\n- id: x\n  description: d\n"
                                            "  section: s\n  match: {classes: [binds]}\n")),
               std::runtime_error);  // unknown class
}

}  // namespace
}  // namespace quotient::kaidiff
