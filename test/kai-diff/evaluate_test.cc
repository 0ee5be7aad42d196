// The evaluator's confirmation runs: a case that diverges from KAI's first runs is run through
// the oracle again, and judged on every run; a case that agrees costs no more runs.
#include "evaluate.h"

#include <gtest/gtest.h>

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

// Answers run k of every case with nodes[min(k, nodes.size() - 1)]; counts the requests.
class ScriptedEngine : public Engine {
 public:
  explicit ScriptedEngine(std::vector<std::string> nodes) : nodes_(std::move(nodes)) {}
  void Submit(const std::vector<RunRequest>& requests) override {
    for (const RunRequest& r : requests) {
      const size_t hash = r.id.find('#');
      const size_t run = hash == std::string::npos ? 0 : std::stoul(r.id.substr(hash + 1));
      pending_.push_back(RunAnswer{Report(nodes_[std::min(run, nodes_.size() - 1)]), ""});
      ++requests_;
    }
  }
  std::vector<RunAnswer> Collect() override { return std::exchange(pending_, {}); }
  int requests() const { return requests_; }

 private:
  std::vector<std::string> nodes_;
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

}  // namespace
}  // namespace quotient::kaidiff
