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

TEST(KnownDifferencesTest, CodePredicateKeyedById) {
  KnownDifference entry{"odd-case", "odd cases", "docs/kai-differences.md#odd", {}, {}, {},
                        false,      {}};
  KnownDifferences known(
      {entry}, {{"odd-case", [](const Case& c, const Difference&) { return c.index % 2 == 1; }}});
  Case c;
  c.index = 3;
  EXPECT_EQ(known.Recognise(c, {"bind-set", "allocate", 0, ""}), "odd-case");
  c.index = 4;
  EXPECT_FALSE(known.Recognise(c, {"bind-set", "allocate", 0, ""}).has_value());
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
