// The comparer: tolerance, classification by the first difference, GPU groups as partitions,
// and the tie rule when KAI's own runs disagree.
#include <gtest/gtest.h>

#include "compare.h"

namespace quotient::kaidiff {
namespace {

using nlohmann::json;

json Queue(const std::string& name, double gpu_fair, double cpu_fair = 4000) {
  return {{"name", name},
          {"fairShare", {{"gpu", gpu_fair}, {"cpu", cpu_fair}, {"memory", 8e9}}},
          {"allocated", {{"gpu", 1}, {"cpu", 1000}, {"memory", 1e9}}},
          {"requested", {{"gpu", 2}, {"cpu", 2000}, {"memory", 2e9}}}};
}

json Pod(const std::string& name, const std::string& queue, const std::string& status,
         const std::string& node = "") {
  json p = {{"pod", name}, {"podGroup", name + "-pg"}, {"queue", queue}, {"status", status}};
  if (!node.empty()) p["node"] = node;
  return p;
}

json Decision(const std::string& action, const std::string& kind, const std::string& pod,
              const std::string& node) {
  return {{"action", action}, {"kind", kind}, {"pod", pod}, {"node", node}};
}

// Queue a evicts b's pod b-1 and pipelines a-1 on n1 in cycle 0; a-1 binds in cycle 1.
json Report() {
  return {
      {"cycles",
       json::array({{{"index", 0},
                     {"decisions", json::array({Decision("reclaim", "evict", "ml/b-1", "n1"),
                                                Decision("reclaim", "pipeline", "ml/a-1", "n1")})}},
                    {{"index", 1},
                     {"decisions", json::array({Decision("allocate", "bind", "ml/a-1", "n1")})}}})},
      {"pods", json::array({Pod("ml/a-1", "a", "Bound", "n1"), Pod("ml/b-1", "b", "Pending")})},
      {"podGroups", json::array({{{"podGroup", "ml/a-1-pg"}, {"status", "Running"}},
                                 {{"podGroup", "ml/b-1-pg"}, {"status", "Pending"}}})},
      {"queues", json::array({Queue("a", 2), Queue("b", 2)})}};
}

std::optional<Difference> Diff(const json& q, const json& k) {
  return Compare(ReadOutcome(q), ReadOutcome(k));
}

TEST(CompareTest, IdenticalReportsAgree) {
  EXPECT_FALSE(Diff(Report(), Report()).has_value());
  const Verdict v = Judge(ReadOutcome(Report()), {ReadOutcome(Report()), ReadOutcome(Report())});
  EXPECT_EQ(v.result, Result::kAgree);
  EXPECT_EQ(v.kai_variants, 1);
}

TEST(CompareTest, ToleranceRule) {
  EXPECT_TRUE(AmountsAgree(3.5, 3.52, 0));  // 0.6% relative
  EXPECT_FALSE(AmountsAgree(3.5, 3.6, 0));  // 2.8%
  EXPECT_TRUE(AmountsAgree(0.0, 0.01, 0));  // gpu: 0.01 absolute
  EXPECT_FALSE(AmountsAgree(0.0, 0.02, 0));
  EXPECT_FALSE(AmountsAgree(0.0, 0.01, 1));  // cpu: relative only
  EXPECT_TRUE(AmountsAgree(1000.0, 1009.0, 1));
  EXPECT_FALSE(AmountsAgree(1000.0, 1011.0, 1));
  EXPECT_TRUE(AmountsAgree(std::nullopt, std::nullopt, 2));
  EXPECT_FALSE(AmountsAgree(std::nullopt, 0.0, 2));
}

TEST(CompareTest, FairShareDifferenceIsClassifiedByResource) {
  json kai = Report();
  kai["queues"][1]["fairShare"]["gpu"] = 3;
  auto d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "fair-share-gpu");
  EXPECT_NE(d->detail.find("queue b gpu"), std::string::npos) << d->detail;

  kai = Report();
  kai["queues"][0]["fairShare"]["cpu"] = 5000;
  d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "fair-share-cpu");

  kai = Report();
  kai["queues"][0]["fairShare"]["gpu"] = 2.004;  // within tolerance
  EXPECT_FALSE(Diff(Report(), kai).has_value());
}

TEST(CompareTest, EarlierCycleDecisionComesBeforeFairShare) {
  // KAI evicted another pod in cycle 0 and its fair share differs: the eviction is first.
  json kai = Report();
  kai["cycles"][0]["decisions"][0]["pod"] = "ml/b-2";
  kai["queues"][1]["fairShare"]["gpu"] = 3;
  const auto d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "eviction-set");
  EXPECT_EQ(d->action, "reclaim");
  EXPECT_EQ(d->cycle, 0);
}

TEST(CompareTest, LastCycleFairShareComesBeforeItsDecisions) {
  json kai = Report();
  kai["cycles"][1]["decisions"][0]["node"] = "n2";
  kai["queues"][0]["fairShare"]["memory"] = 9e9;
  auto d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "fair-share-memory");
  kai["queues"][0]["fairShare"]["memory"] = 8e9;
  d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "bind-set");
  EXPECT_EQ(d->cycle, 1);
}

TEST(CompareTest, PipelineAndStatusClasses) {
  json kai = Report();
  kai["cycles"][0]["decisions"].erase(1);
  auto d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "pipeline-set");

  kai = Report();
  kai["pods"][1]["status"] = "Releasing";
  d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "pod-status");

  // A finished or pending pod's node is not compared; a running one's is.
  json mine = Report();
  mine["pods"][1]["status"] = kai["pods"][1]["status"] = "Succeeded";
  mine["pods"][1]["node"] = "n1";
  EXPECT_FALSE(Diff(mine, kai).has_value());
  mine["pods"][1]["status"] = kai["pods"][1]["status"] = "Running";
  d = Diff(mine, kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "pod-status");

  kai = Report();
  kai["podGroups"][1]["status"] = "Running";
  d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "pod-group-status");

  kai = Report();
  kai["queues"][1]["requested"]["gpu"] = 5;
  d = Diff(Report(), kai);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "requested");
}

TEST(CompareTest, GpuGroupsCompareAsWhoSharesNotByName) {
  json q = Report();
  q["pods"] = json::array({Pod("ml/a-1", "a", "Bound", "n1"), Pod("ml/a-2", "a", "Bound", "n1"),
                           Pod("ml/b-1", "b", "Pending")});
  json k = q;
  q["pods"][0]["gpuGroups"] = q["pods"][1]["gpuGroups"] = json::array({"0"});
  k["pods"][0]["gpuGroups"] = k["pods"][1]["gpuGroups"] = json::array({"f81d4fae"});
  EXPECT_FALSE(Diff(q, k).has_value());
  k["pods"][1]["gpuGroups"] = json::array({"another"});
  const auto d = Diff(q, k);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->cls, "gpu-sharing");
}

TEST(CompareTest, QuotientMatchingAnyKaiRunAgrees) {
  json other = Report();
  other["cycles"][1]["decisions"][0]["node"] = "n2";
  other["pods"][0]["node"] = "n2";
  const Verdict v = Judge(ReadOutcome(Report()), {ReadOutcome(other), ReadOutcome(Report())});
  EXPECT_EQ(v.result, Result::kAgree);
  EXPECT_EQ(v.matched_run, 1);
  EXPECT_EQ(v.kai_variants, 2);
}

TEST(CompareTest, TieClassWhenKaiVariesAndQuotientMatchesTheClass) {
  json kai1 = Report(), kai2 = Report(), mine = Report();
  kai1["cycles"][1]["decisions"][0]["node"] = "n2";
  kai1["pods"][0]["node"] = "n2";
  kai2["cycles"][1]["decisions"][0]["node"] = "n3";
  kai2["pods"][0]["node"] = "n3";
  mine["cycles"][1]["decisions"][0]["node"] = "n4";  // same counts per queue, another node
  mine["pods"][0]["node"] = "n4";
  Verdict v = Judge(ReadOutcome(mine), {ReadOutcome(kai1), ReadOutcome(kai2)});
  EXPECT_EQ(v.result, Result::kTieClass);
  EXPECT_EQ(v.first.cls, "bind-set");

  mine["cycles"][1]["decisions"] = json::array();  // binds nothing: another class
  v = Judge(ReadOutcome(mine), {ReadOutcome(kai1), ReadOutcome(kai2)});
  EXPECT_EQ(v.result, Result::kDiverge);

  // KAI consistent: no tie rule, even with the same class signature.
  mine = Report();
  mine["cycles"][1]["decisions"][0]["node"] = "n4";
  mine["pods"][0]["node"] = "n4";
  v = Judge(ReadOutcome(mine), {ReadOutcome(kai1), ReadOutcome(kai1)});
  EXPECT_EQ(v.result, Result::kDiverge);
  EXPECT_EQ(v.first.cls, "bind-set");
}

}  // namespace
}  // namespace quotient::kaidiff
