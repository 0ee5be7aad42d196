// The evaluator's confirmation runs: a case that diverges from KAI's first runs is run through
// the oracle again, and judged on every run; a case that agrees costs no more runs. And its
// reruns for documented differences in arithmetic (`rerun-with`).
#include "evaluate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "generator.h"

namespace quotient::kaidiff {
namespace {

using nlohmann::json;

// One cycle: pod ml/a-1 bound to `node`.
json Report(const std::string& node) {
  return {{"cycles", json::array({{{"index", 0},
                                   {"decisions", json::array({{{"action", "allocate"},
                                                               {"kind", "bind"},
                                                               {"pod", "ml/a-1"},
                                                               {"node", node}}})}}})},
          {"pods", json::array({{{"pod", "ml/a-1"},
                                 {"podGroup", "ml/a-1-pg"},
                                 {"queue", "a"},
                                 {"status", "Bound"},
                                 {"node", node}}})},
          {"podGroups", json::array({{{"podGroup", "ml/a-1-pg"}, {"status", "Running"}}})},
          {"queues", json::array({{{"name", "a"},
                                   {"fairShare", {{"gpu", 1}, {"cpu", 0}, {"memory", 0}}},
                                   {"allocated", {{"gpu", 1}, {"cpu", 0}, {"memory", 0}}},
                                   {"requested", {{"gpu", 1}, {"cpu", 0}, {"memory", 0}}}}})}};
}

// Answers run k of every case with nodes[min(k, nodes.size() - 1)], or, for a request carrying
// the flag `rerun_flag`, with `rerun_node` (no report when that is empty); counts the requests.
class ScriptedEngine : public Engine {
 public:
  explicit ScriptedEngine(std::vector<std::string> nodes, std::string rerun_flag = "",
                          std::string rerun_node = "")
      : nodes_(std::move(nodes)),
        rerun_flag_(std::move(rerun_flag)),
        rerun_node_(std::move(rerun_node)) {}
  void Submit(const std::vector<RunRequest>& requests) override {
    for (const RunRequest& r : requests) {
      ++requests_;
      if (!rerun_flag_.empty() &&
          std::find(r.args.begin(), r.args.end(), rerun_flag_) != r.args.end()) {
        ++reruns_;
        pending_.push_back(rerun_node_.empty() ? RunAnswer{std::nullopt, "no answer"}
                                               : RunAnswer{Report(rerun_node_), ""});
        continue;
      }
      const size_t hash = r.id.find('#');
      const size_t run = hash == std::string::npos ? 0 : std::stoul(r.id.substr(hash + 1));
      pending_.push_back(RunAnswer{Report(nodes_[std::min(run, nodes_.size() - 1)]), ""});
    }
  }
  std::vector<RunAnswer> Collect() override { return std::exchange(pending_, {}); }
  int requests() const { return requests_; }
  int reruns() const { return reruns_; }

 private:
  std::vector<std::string> nodes_;
  std::string rerun_flag_, rerun_node_;
  int reruns_ = 0;
  std::vector<RunAnswer> pending_;
  int requests_ = 0;
};

class EvaluateTest : public ::testing::Test {
 protected:
  CaseResult Evaluate(ScriptedEngine& oracle, int confirm_runs) {
    ScriptedEngine quotient({"n1"});
    Evaluator evaluator(quotient, oracle, 2, known_, confirm_runs);
    return evaluator.Evaluate(GenerateCase(1, 0), dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  KnownDifferences known_;
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                               ("kai-diff-evaluate-test-" +
                                std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
};

TEST_F(EvaluateTest, WithoutConfirmationRunsTheFirstRunsDecide) {
  ScriptedEngine oracle({"n2", "n2", "n1"});  // Quotient's answer only from the third run on
  EXPECT_EQ(Evaluate(oracle, 0).status, Status::kDiverge);
  EXPECT_EQ(oracle.requests(), 2);
}

TEST_F(EvaluateTest, AVariantTheFirstRunsMissedIsFoundByConfirmationRuns) {
  ScriptedEngine oracle({"n2", "n2", "n1"});
  const CaseResult r = Evaluate(oracle, 3);
  EXPECT_EQ(r.status, Status::kAgree);
  EXPECT_EQ(oracle.requests(), 5);
  EXPECT_EQ(r.kai_reports.size(), 5u);
}

TEST_F(EvaluateTest, ADivergenceEveryRunConfirmsStaysADivergence) {
  ScriptedEngine oracle({"n2"});
  const CaseResult r = Evaluate(oracle, 3);
  EXPECT_EQ(r.status, Status::kDiverge);
  EXPECT_EQ(r.verdict.kai_variants, 1);
  EXPECT_EQ(oracle.requests(), 5);
}

TEST_F(EvaluateTest, AnAgreementCostsNoConfirmationRuns) {
  ScriptedEngine oracle({"n1"});
  EXPECT_EQ(Evaluate(oracle, 3).status, Status::kAgree);
  EXPECT_EQ(oracle.requests(), 2);
}

// An entry with `rerun-with`: a divergence KAI no longer shows when rerun with the entry's flags
// is that entry's; one it still shows, or a rerun without an answer, stays a divergence.
class RerunTest : public EvaluateTest {
 protected:
  CaseResult EvaluateWithRerun(ScriptedEngine& oracle) {
    KnownDifference entry;
    entry.id = "float-rounded-tie";
    entry.description = "a tie KAI breaks by float error";
    entry.section = "docs/kai-differences.md#x";
    entry.rerun_with = {"--round-fair-shares"};
    const KnownDifferences known({entry});
    ScriptedEngine quotient({"n1"});
    Evaluator evaluator(quotient, oracle, 2, known, 1);
    return evaluator.Evaluate(GenerateCase(1, 0), dir_);
  }
};

TEST_F(RerunTest, ADivergenceTheRerunDoesNotShowIsTheEntrys) {
  ScriptedEngine oracle({"n2"}, "--round-fair-shares", "n1");
  const CaseResult r = EvaluateWithRerun(oracle);
  EXPECT_EQ(r.status, Status::kKnown);
  EXPECT_EQ(r.known_id, "float-rounded-tie");
  EXPECT_EQ(r.Class(), "bind-set");
  EXPECT_EQ(oracle.reruns(), 2);    // one per first run
  EXPECT_EQ(oracle.requests(), 5);  // 2 first, 1 confirmation, 2 reruns
}

TEST_F(RerunTest, ADivergenceTheRerunStillShowsStays) {
  ScriptedEngine oracle({"n2"}, "--round-fair-shares", "n3");
  const CaseResult r = EvaluateWithRerun(oracle);
  EXPECT_EQ(r.status, Status::kDiverge);
  EXPECT_EQ(oracle.reruns(), 2);
}

TEST_F(RerunTest, ARerunWithoutAnAnswerRecognisesNothing) {
  ScriptedEngine oracle({"n2"}, "--round-fair-shares", "");
  EXPECT_EQ(EvaluateWithRerun(oracle).status, Status::kDiverge);
}

TEST_F(RerunTest, AnAgreementCostsNoRerun) {
  ScriptedEngine oracle({"n1"}, "--round-fair-shares", "n3");
  EXPECT_EQ(EvaluateWithRerun(oracle).status, Status::kAgree);
  EXPECT_EQ(oracle.reruns(), 0);
}

}  // namespace
}  // namespace quotient::kaidiff
