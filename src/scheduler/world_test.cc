#include "scheduler/world.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::scheduler {
namespace {

using testing::MakePod;

const core::PodObject* Find(const core::ClusterObjects& o, std::string_view key) {
  for (const core::PodObject& p : o.pods) {
    if (p.meta.Key() == key) return &p;
  }
  return nullptr;
}

core::ClusterObjects ThreePods() {
  core::ClusterObjects o;
  o.pods.push_back(MakePod("ns", "new").Group("pg"));
  o.pods.push_back(MakePod("ns", "victim")
                       .Group("pg2")
                       .Label("runai-gpu-group", "g7")
                       .Annotation("gpu-fraction", "0.5")
                       .RunningOn("n1"));
  o.pods.push_back(MakePod("ns", "waiting"));
  return o;
}

TEST(AdvanceWorld, BoundPodsStartRunningWithTheirGpuGroup) {
  core::ClusterObjects o = ThreePods();
  AdvanceWorld(o, {{"allocate", DecisionKind::kBind, "ns/new", "n2", {"g1"}, ""}}, false);
  const core::PodObject* p = Find(o, "ns/new");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->phase, core::PodPhase::kRunning);
  EXPECT_EQ(p->node_name, "n2");
  EXPECT_EQ(p->meta.labels.at("runai-gpu-group"), "g1");
}

TEST(AdvanceWorld, MultiDeviceFractionsGetOneLabelPerGroup) {
  core::ClusterObjects o = ThreePods();
  AdvanceWorld(o, {{"allocate", DecisionKind::kBind, "ns/new", "n2", {"a", "b"}, ""}}, false);
  const core::PodObject* p = Find(o, "ns/new");
  EXPECT_EQ(p->meta.labels.at("runai-gpu-group/a"), "a");
  EXPECT_EQ(p->meta.labels.at("runai-gpu-group/b"), "b");
  EXPECT_EQ(p->meta.labels.count("runai-gpu-group"), 0u);
}

TEST(AdvanceWorld, EvictedPodsComeBackPendingInTheirGroup) {
  core::ClusterObjects o = ThreePods();
  AdvanceWorld(o, {{"reclaim", DecisionKind::kEvict, "ns/victim", "n1", {}, "fair share"}}, false);
  const core::PodObject* p = Find(o, "ns/victim");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->phase, core::PodPhase::kPending);
  EXPECT_TRUE(p->node_name.empty());
  EXPECT_EQ(p->meta.annotations.at("pod-group-name"), "pg2");
  EXPECT_EQ(p->meta.labels.count("runai-gpu-group"), 0u);  // the binder assigns a new one
  EXPECT_EQ(p->meta.annotations.at("gpu-fraction"), "0.5");
}

TEST(AdvanceWorld, DeleteEvictedDropsThePod) {
  core::ClusterObjects o = ThreePods();
  AdvanceWorld(o, {{"reclaim", DecisionKind::kEvict, "ns/victim", "n1", {}, ""}}, true);
  EXPECT_EQ(Find(o, "ns/victim"), nullptr);
  EXPECT_EQ(o.pods.size(), 2u);
}

TEST(AdvanceWorld, PipelinedPodsStayPending) {
  core::ClusterObjects o = ThreePods();
  AdvanceWorld(o, {{"reclaim", DecisionKind::kPipeline, "ns/waiting", "n1", {}, ""}}, false);
  const core::PodObject* p = Find(o, "ns/waiting");
  EXPECT_EQ(p->phase, core::PodPhase::kPending);
  EXPECT_TRUE(p->node_name.empty());
}

TEST(AdvanceWorld, TerminatingPodsStayTerminating) {
  core::ClusterObjects o;
  o.pods.push_back(MakePod("ns", "going").RunningOn("n1").Deleting());
  AdvanceWorld(o, {}, false);
  EXPECT_TRUE(o.pods[0].meta.deleting);
  EXPECT_EQ(o.pods[0].node_name, "n1");
}

}  // namespace
}  // namespace quotient::scheduler
