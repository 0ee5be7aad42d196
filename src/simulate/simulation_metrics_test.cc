// What the simulator measures besides times: Jain's fairness index, the GPU occupancy snapshots,
// the shared-GPU allocation, the progress it reports, and PodGroups that leave with their last
// pod and come back with a later one.
#include <gtest/gtest.h>

#include "builders/objects.h"
#include "simulate/run_summary.h"
#include "simulate/simulation.h"
#include "simulate/simulation_test_workloads.h"
#include "simulate/workload_times.h"

namespace quotient::simulate {
namespace {

using quotient::testing::MakeGroup;
using quotient::testing::MakeNode;
using quotient::testing::MakePod;
using quotient::testing::MakeQueue;
using std::chrono::seconds;
using testing::Simulated;
using testing::TwoTeams;
using testing::Work;

TEST(JainIndexTest, FollowsTheFormula) {
  EXPECT_EQ(JainPermille({}), -1);
  EXPECT_EQ(JainPermille({0, 0}), 1000);
  EXPECT_EQ(JainPermille({1000, 1000, 1000}), 1000);
  // One queue at its share, one at nothing: (1)^2 / (2 * 1) = 0.5.
  EXPECT_EQ(JainPermille({1000, 0}), 500);
  // (2 + 1 + 0)^2 / (3 * (4 + 1 + 0)) = 9 / 15 = 0.6.
  EXPECT_EQ(JainPermille({2000, 1000, 0}), 600);
  // n equal values of anything: 1.
  EXPECT_EQ(JainPermille(std::vector<int64_t>(10'000, 10'000)), 1000);
}

TEST(SimulationMetricsTest, FairnessIsOneWhenEveryQueueHoldsItsShareAndFallsWhenOneDoesNot) {
  core::ClusterObjects o = TwoTeams(2);  // 16 GPUs, 8 deserved each
  for (int i = 0; i < 8; ++i) {
    o.pods.push_back(Work("a-" + std::to_string(i), "team-a", 1, 0, 1000));
    o.pods.push_back(Work("b-" + std::to_string(i), "team-b", 1, 0, 1000));
  }
  // team-b asks for one more GPU than the cluster has left: its fair share stays 8, it holds 8.
  o.pods.push_back(Work("b-extra", "team-b", 1, 0, 1000));
  SimulationOptions options;
  options.until = seconds(10);
  const SimulationResult r = Simulated(o, options);
  ASSERT_FALSE(r.cluster.empty());
  EXPECT_EQ(r.cluster.front().jain_permille, 1000);
  EXPECT_EQ(Summarize(r).fairness_permille, 1000);

  // team-b borrows all 16 GPUs; team-a comes back and, with only allocate running, nothing is
  // reclaimed: fractions of fair share 0 (team-a) and 2 (team-b): 2^2 / (2 * 4) = 0.5.
  core::ClusterObjects borrowed = TwoTeams(2);
  for (int i = 0; i < 16; ++i) {
    borrowed.pods.push_back(Work("b-" + std::to_string(i), "team-b", 1, 0, 1000));
  }
  borrowed.pods.push_back(Work("a", "team-a", 8, 100, 1000));
  SimulationOptions allocate_only;
  allocate_only.config.actions = {"allocate"};
  allocate_only.until = seconds(200);
  const SimulationResult unfair = Simulated(borrowed, allocate_only);
  EXPECT_EQ(unfair.cluster.front().jain_permille, 1000);  // team-b alone has a fair share
  EXPECT_EQ(unfair.cluster.back().jain_permille, 500);
}

TEST(SimulationMetricsTest, OccupancyShowsWhichQueueHoldsEachGpu) {
  core::ClusterObjects o = TwoTeams(1);
  o.pods.push_back(Work("a", "team-a", 3, 0, 100));
  o.pods.push_back(MakePod("ns", "b")
                       .Queue("team-b")
                       .Annotation("gpu-fraction", "0.5")
                       .Annotation(std::string(kDurationAnnotation), "100s"));
  SimulationOptions options;
  options.occupancy_at = {seconds(0), seconds(100)};
  const SimulationResult r = Simulated(o, options);
  ASSERT_EQ(r.occupancy.size(), 2u);
  const OccupancySnapshot& first = r.occupancy[0];
  EXPECT_EQ(first.time, seconds(0));
  ASSERT_EQ(first.nodes.size(), 1u);
  ASSERT_EQ(first.nodes[0].gpus.size(), 8u);
  int64_t team_a = 0, team_b = 0, idle = 0;
  for (const std::vector<GpuHolder>& gpu : first.nodes[0].gpus) {
    if (gpu.empty()) ++idle;
    for (const GpuHolder& h : gpu) {
      if (h.queue == "team-a") team_a += h.milli;
      if (h.queue == "team-b") team_b += h.milli;
    }
  }
  EXPECT_EQ(team_a, 3000);
  EXPECT_EQ(team_b, 500);
  EXPECT_EQ(idle, 4);
  // Both done at 100 s: every GPU idle.
  for (const std::vector<GpuHolder>& gpu : r.occupancy[1].nodes[0].gpus) EXPECT_TRUE(gpu.empty());
  // The fractional pod's half GPU is the shared allocation.
  EXPECT_EQ(r.cluster.front().allocated_gpu_milli, 3500);
  EXPECT_EQ(r.cluster.front().shared_gpu_milli, 500);
  EXPECT_EQ(r.cluster.front().partly_used_gpus, 1);
}

TEST(SimulationMetricsTest, WithoutChosenInstantsOccupancyIsKeptBoundedAndEndsWithTheLastCycle) {
  core::ClusterObjects o = TwoTeams(1);
  // One pod every 10 minutes for 2 days.
  for (int i = 0; i < 288; ++i)
    o.pods.push_back(Work("p-" + std::to_string(i), "team-a", 1, i * 600, 300));
  SimulationOptions options;
  options.max_occupancy_snapshots = 8;
  const SimulationResult r = Simulated(o, options);
  ASSERT_FALSE(r.occupancy.empty());
  EXPECT_LE(r.occupancy.size(), 9u);  // at most 8 on the grid, and the end
  EXPECT_GE(r.occupancy.size(), 4u);
  EXPECT_EQ(r.occupancy.back().time, r.end);
  for (size_t i = 1; i < r.occupancy.size(); ++i) {
    EXPECT_LT(r.occupancy[i - 1].time, r.occupancy[i].time);
  }
}

TEST(SimulationMetricsTest, ProgressCountsArrivalsUpToEveryPod) {
  core::ClusterObjects o = TwoTeams(1);
  for (int i = 0; i < 5; ++i)
    o.pods.push_back(Work("p-" + std::to_string(i), "team-a", 1, i * 100, 50));
  std::vector<Progress> seen;
  SimulationOptions options;
  options.progress = [&](const Progress& p) { seen.push_back(p); };
  const SimulationResult r = Simulated(o, options);
  ASSERT_EQ(static_cast<int64_t>(seen.size()), r.cycles);
  EXPECT_EQ(seen.back().arrived, 5);
  EXPECT_EQ(seen.back().pods, 5);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].arrived, seen[i - 1].arrived);
}

TEST(SimulationMetricsTest, APodGroupLeavesWithItsLastPodAndReturnsWithALaterOne) {
  core::ClusterObjects o = TwoTeams(1);
  o.pod_groups.push_back(MakeGroup("ns", "job").Queue("team-a").MinMember(1));
  core::PodObject first = Work("first", "team-a", 2, 0, 100);
  first.meta.annotations["pod-group-name"] = "job";
  core::PodObject later = Work("later", "team-a", 2, 500, 100);
  later.meta.annotations["pod-group-name"] = "job";
  o.pods.push_back(first);
  o.pods.push_back(later);
  const SimulationResult r = Simulated(o);
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].pod, "ns/first");
  EXPECT_EQ(r.pods[0].finished, seconds(100));
  EXPECT_EQ(r.pods[1].pod, "ns/later");
  EXPECT_EQ(r.pods[1].started, seconds(500));
  EXPECT_EQ(r.pods[1].finished, seconds(600));
  EXPECT_EQ(r.pods[1].pod_group, "ns/job");
}

}  // namespace
}  // namespace quotient::simulate
