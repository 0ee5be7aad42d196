// The shrinker keeps the divergence and removes what does not matter: first with a predicate
// that names the objects it needs, then on real divergences that the comparison finds between
// Quotient and a perturbed Quotient (kai_diff's fake oracle).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "evaluate.h"
#include "generator.h"
#include "shrink.h"

namespace quotient::kaidiff {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int Count(const Case& c, const std::string& kind) {
  int n = 0;
  for (const json& o : c.objects) n += o["kind"] == kind ? 1 : 0;
  return n;
}

const json* Find(const Case& c, const std::string& kind, const std::string& name) {
  for (const json& o : c.objects) {
    if (o["kind"] == kind && o["metadata"]["name"] == name) return &o;
  }
  return nullptr;
}

// A generated case with at least `pods` pods (one of them pending), `nodes` nodes and cycles.
Case Big(int pods, int nodes) {
  for (int i = 0;; ++i) {
    Case c = GenerateCase(11, i);
    bool pending = false;
    for (const json& o : c.objects) {
      pending = pending || (o["kind"] == "Pod" && !o["spec"].contains("nodeName"));
    }
    if (pending && Count(c, "Pod") >= pods && Count(c, "Node") >= nodes && c.run.cycles > 1) {
      return c;
    }
  }
}

TEST(ShrinkTest, KeepsWhatThePredicateNeedsAndDropsTheRest) {
  const Case c = Big(12, 3);
  // The "divergence" needs one pending pod (the last pod) and the second node.
  std::string pod, node;
  for (const json& o : c.objects) {
    if (o["kind"] == "Pod" && !o["spec"].contains("nodeName")) pod = o["metadata"]["name"];
  }
  int seen = 0;
  for (const json& o : c.objects) {
    if (o["kind"] == "Node" && seen++ == 1) node = o["metadata"]["name"];
  }
  auto test = [&](const Case& x) {
    return Find(x, "Pod", pod) != nullptr && Find(x, "Node", node) != nullptr;
  };
  ShrinkStats stats;
  const Case shrunk = Shrink(c, test, 1000, &stats);
  EXPECT_TRUE(test(shrunk));
  EXPECT_EQ(Count(shrunk, "Pod"), 1);
  EXPECT_EQ(Count(shrunk, "Node"), 1);
  EXPECT_LE(Count(shrunk, "PodGroup"), 1);
  EXPECT_EQ(shrunk.run.cycles, 1);
  EXPECT_EQ(shrunk.run.actions.size(), 1u);
  EXPECT_FALSE(shrunk.run.config.has_value());
  // Only the pod's queue and its ancestors are left.
  const json& kept = *Find(shrunk, "Pod", pod);
  std::string queue = kept["metadata"]["labels"]["kai.scheduler/queue"];
  int chain = 0;
  for (const json* q = Find(shrunk, "Queue", queue); q != nullptr;) {
    ++chain;
    if (!(*q)["spec"].contains("parentQueue")) break;
    q = Find(shrunk, "Queue", (*q)["spec"]["parentQueue"]);
  }
  EXPECT_EQ(Count(shrunk, "Queue"), chain);
  EXPECT_EQ(Count(shrunk, "PriorityClass"), 0);
  EXPECT_GT(stats.accepted, 0);
  EXPECT_LE(stats.tests, 1000);
}

TEST(ShrinkTest, StopsAtTheBudget) {
  const Case c = Big(12, 3);
  ShrinkStats stats;
  Shrink(
      c, [](const Case&) { return false; }, 7, &stats);
  EXPECT_EQ(stats.tests, 7);
  EXPECT_EQ(stats.accepted, 0);
}

// Quotient against the fake oracle with a perturbation: the first diverging case among the
// first 300 of seed 1 is found, classified and shrunk with its class kept.
void FindAndShrink(const std::string& perturbation, const std::vector<std::string>& classes) {
  const fs::path work = fs::temp_directory_path() /
                        ("kai-diff-shrink-test-" + perturbation + "-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  QuotientEngine quotient(KAI_DIFF_QUOTIENT_BINARY, work);
  OracleEngine oracle({KAI_DIFF_BINARY, "fake-oracle", "--quotient", KAI_DIFF_QUOTIENT_BINARY,
                       "--perturb", perturbation, "--scratch", (work / "fake").string()},
                      work / "oracle.stderr", 60);
  const KnownDifferences known;
  Evaluator evaluator(quotient, oracle, 1, known);
  std::optional<Case> found;
  CaseResult first;
  for (int i = 0; i < 300 && !found; i += 20) {
    std::vector<Case> cases;
    std::vector<fs::path> dirs;
    for (int k = i; k < i + 20; ++k) {
      cases.push_back(GenerateCase(1, k));
      dirs.push_back(work / cases.back().Id());
    }
    const std::vector<CaseResult> results = evaluator.EvaluateAll(cases, dirs);
    for (size_t k = 0; k < results.size() && !found; ++k) {
      ASSERT_NE(results[k].status, Status::kOracleError) << results[k].error;
      if (results[k].status == Status::kDiverge) {
        found = cases[k];
        first = results[k];
      }
    }
  }
  ASSERT_TRUE(found.has_value()) << "no divergence found for " << perturbation;
  EXPECT_NE(std::find(classes.begin(), classes.end(), first.Class()), classes.end())
      << first.Class() << ": " << first.verdict.first.detail;
  int attempt = 0;
  auto test = [&](const Case& x) {
    const CaseResult r = evaluator.Evaluate(x, work / ("try-" + std::to_string(attempt++)));
    return r.status == Status::kDiverge && r.Class() == first.Class();
  };
  ShrinkStats stats;
  const Case shrunk = Shrink(*found, test, 60, &stats);
  EXPECT_TRUE(test(shrunk));
  EXPECT_LT(shrunk.objects.size(), found->objects.size());
  fs::remove_all(work);
}

TEST(ShrinkTest, FairShareDivergenceFromWeightsIsFoundAndShrunk) {
  FindAndShrink("weights-one", {"fair-share-gpu", "fair-share-cpu", "fair-share-memory"});
}

TEST(ShrinkTest, EvictionDivergenceIsFoundAndShrunk) {
  FindAndShrink("drop-last-eviction", {"eviction-set"});
}

}  // namespace
}  // namespace quotient::kaidiff
