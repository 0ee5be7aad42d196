// The simulator's time behaviour on small clusters whose outcome follows from KAI's rules: who
// borrows, when reclaim comes, when a gang fits, what min-runtime protection delays; and the
// invariants of any run (every pod accounted for, the same bytes for the same inputs).
#include "simulate/simulation.h"

#include <gtest/gtest.h>

#include <sstream>

#include "builders/objects.h"
#include "simulate/report_files.h"
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

const PodOutcome& Outcome(const SimulationResult& r, const std::string& pod) {
  for (const PodOutcome& p : r.pods) {
    if (p.pod == pod) return p;
  }
  throw std::runtime_error("no pod " + pod);
}

TEST(SimulationTest, EveryPodIsAccountedForAndRepeatsGiveTheSameBytes) {
  core::ClusterObjects o = TwoTeams(2);
  for (int i = 0; i < 12; ++i) {
    o.pods.push_back(Work("a-" + std::to_string(i), "team-a", 1 + i % 3, i * 40, 300 + i * 50));
    o.pods.push_back(Work("b-" + std::to_string(i), "team-b", 2, i * 30, 900));
  }
  // One that never fits, and a service that never ends.
  o.pods.push_back(Work("huge", "team-a", 24, 5, 100));
  o.pods.push_back(MakePod("ns", "service").Queue("team-b").Gpus(1));
  const SimulationResult r = Simulated(o);
  ASSERT_EQ(r.pods.size(), 26u);
  int completed = 0, running = 0, pending = 0;
  for (const PodOutcome& p : r.pods) {
    completed += p.state == PodState::kCompleted;
    running += p.state == PodState::kRunning;
    pending += p.state == PodState::kPending;
    if (p.state == PodState::kCompleted) {
      ASSERT_TRUE(p.started && p.finished) << p.pod;
      EXPECT_GE(*p.started, p.arrival) << p.pod;
    }
  }
  EXPECT_EQ(completed + running + pending, 26);
  EXPECT_EQ(Outcome(r, "ns/huge").state, PodState::kPending);
  EXPECT_EQ(Outcome(r, "ns/service").state, PodState::kRunning);
  EXPECT_EQ(completed, 24);

  const auto csv = [](const SimulationResult& result) {
    std::ostringstream out;
    WriteClusterCsv(result, out);
    WriteQueuesCsv(result, out);
    WritePodsCsv(result, out);
    return out.str();
  };
  EXPECT_EQ(csv(r), csv(Simulated(o)));
}

TEST(SimulationTest, ABorrowerIsReclaimedWithinCyclesOfTheOwnersDemand) {
  core::ClusterObjects o = TwoTeams(2);  // 16 GPUs, 8 deserved each
  for (int i = 0; i < 16; ++i)
    o.pods.push_back(Work("b-" + std::to_string(i), "team-b", 1, 0, 36000));
  for (int i = 0; i < 8; ++i)
    o.pods.push_back(Work("a-" + std::to_string(i), "team-a", 1, 600, 3600));
  SimulationOptions options;
  options.until = seconds(1200);
  const SimulationResult r = Simulated(o, options);
  // team-b borrows all 16 GPUs while team-a is away.
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(Outcome(r, "ns/b-" + std::to_string(i)).started, seconds(0));
  // team-a's demand at 600 s is served within a few one-second cycles, by reclaiming 8.
  for (int i = 0; i < 8; ++i) {
    const PodOutcome& a = Outcome(r, "ns/a-" + std::to_string(i));
    ASSERT_TRUE(a.started) << a.pod;
    EXPECT_GE(*a.started, seconds(600));
    EXPECT_LE(*a.started, seconds(605));
  }
  int evicted = 0;
  for (const PodOutcome& p : r.pods) evicted += p.evictions;
  EXPECT_EQ(evicted, 8);
  EXPECT_EQ(r.cluster.back().evictions, 8);
  // 8 pods, 600 s each, lost: 4,800 GPU-seconds (restart from zero).
  EXPECT_EQ(r.cluster.back().lost_gpu_milli_seconds, 8 * 600 * 1000);
  // The last sample: each queue holds its 8 deserved GPUs.
  for (auto it = r.queues.rbegin(); it != r.queues.rend() && it->time == r.queues.back().time;
       ++it) {
    EXPECT_EQ(it->allocated_gpu_milli, 8000) << it->queue;
    EXPECT_EQ(it->fair_share_gpu_milli, 8000) << it->queue;
  }
}

TEST(SimulationTest, ACheckpointKeepsPartOfAnEvictedPodsWork) {
  core::ClusterObjects o = TwoTeams(2);  // 16 GPUs, 8 deserved each: team-b borrows 8
  o.pods.push_back(Work("b-0", "team-b", 8, 0, 1000));
  o.pods.push_back(Work("b-1", "team-b", 8, 0, 1000));
  o.pods.push_back(Work("a", "team-a", 8, 400, 100));
  SimulationOptions options;
  options.checkpoint_permille = 500;  // half the progress survives
  const SimulationResult r = Simulated(o, options);
  const PodOutcome& a = Outcome(r, "ns/a");
  ASSERT_TRUE(a.finished);
  const PodOutcome& b0 = Outcome(r, "ns/b-0");
  const PodOutcome& b1 = Outcome(r, "ns/b-1");
  ASSERT_EQ(b0.evictions + b1.evictions, 1);
  const PodOutcome& evicted = b0.evictions == 1 ? b0 : b1;
  const PodOutcome& kept = b0.evictions == 1 ? b1 : b0;
  EXPECT_EQ(kept.finished, seconds(1000));
  // The evicted one ran 400 s and kept 200: 800 s left, from when a finishes and frees its GPUs.
  ASSERT_TRUE(evicted.finished);
  EXPECT_GE(*evicted.finished, *a.finished + seconds(800));
  EXPECT_LE(*evicted.finished, *a.finished + seconds(800 + 3));
  EXPECT_EQ(r.cluster.back().lost_gpu_milli_seconds, 8 * 200 * 1000);
}

TEST(SimulationTest, AGangWaitsUntilEnoughGpusAreFree) {
  core::ClusterObjects o = TwoTeams(1);
  for (int i = 0; i < 6; ++i)
    o.pods.push_back(Work("small-" + std::to_string(i), "team-a", 1, 0, 100 + 50 * i));
  core::PodGroupObject gang = MakeGroup("ns", "gang").Queue("team-a").MinMember(4);
  gang.meta.annotations[std::string(kArrivalAnnotation)] = "10s";
  gang.meta.annotations[std::string(kDurationAnnotation)] = "500s";
  o.pod_groups.push_back(gang);
  for (int i = 0; i < 4; ++i) {
    o.pods.push_back(MakePod("ns", "gang-" + std::to_string(i)).Group("gang").Gpus(1));
  }
  const SimulationResult r = Simulated(o);
  // 2 GPUs free until small-0 ends at 100 s (3 free) and small-1 at 150 s (4 free).
  for (int i = 0; i < 4; ++i) {
    const PodOutcome& p = Outcome(r, "ns/gang-" + std::to_string(i));
    EXPECT_EQ(p.arrival, seconds(10));
    ASSERT_TRUE(p.started) << p.pod;
    EXPECT_EQ(*p.started, seconds(150)) << p.pod;
    EXPECT_EQ(p.finished, seconds(650)) << p.pod;
  }
}

TEST(SimulationTest, MinRuntimeProtectionDelaysAReclaim) {
  core::ClusterObjects o = TwoTeams(2);            // 16 GPUs, 8 deserved each: team-b borrows 8
  o.queues[1].reclaim_min_runtime = seconds(900);  // team-b's jobs are safe for 15 minutes
  for (int i = 0; i < 16; ++i) {
    // Groups of their own: protection reads the group's last-start annotation.
    o.pod_groups.push_back(MakeGroup("ns", "b-" + std::to_string(i)).Queue("team-b"));
    core::PodObject p = Work("b-" + std::to_string(i), "team-b", 1, 0, 36000);
    p.meta.annotations["pod-group-name"] = "b-" + std::to_string(i);
    o.pods.push_back(p);
  }
  o.pods.push_back(Work("a", "team-a", 4, 60, 600));
  SimulationOptions options;
  options.until = seconds(2000);
  const SimulationResult r = Simulated(o, options);
  const PodOutcome& a = Outcome(r, "ns/a");
  ASSERT_TRUE(a.started);
  // Not before team-b's jobs have run 900 s; within the one-minute idle step after.
  EXPECT_GE(*a.started, seconds(900));
  EXPECT_LE(*a.started, seconds(960 + 2));
  int evicted = 0;
  for (const PodOutcome& p : r.pods) evicted += p.evictions;
  EXPECT_EQ(evicted, 4);
}

TEST(SimulationTest, WaitPercentilesAreNearestRank) {
  std::vector<int64_t> hundred;
  for (int64_t i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(Percentile(hundred, 50), 50);
  EXPECT_EQ(Percentile(hundred, 95), 95);
  EXPECT_EQ(Percentile(hundred, 99), 99);
  // Of 3 values, p50 is the 2nd (ceil(1.5)), p99 the 3rd.
  EXPECT_EQ(Percentile({10, 20, 30}, 50), 20);
  EXPECT_EQ(Percentile({10, 20, 30}, 99), 30);
  EXPECT_EQ(Percentile({}, 50), 0);
}

TEST(SimulationTest, UnreadableTimesAreAnErrorNamingTheObject) {
  core::ClusterObjects o = TwoTeams(1);
  o.pods.push_back(MakePod("ns", "bad")
                       .Queue("team-a")
                       .Gpus(1)
                       .Annotation(std::string(kDurationAnnotation), "soon"));
  Result<SimulationResult> r = Simulate(o, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("Pod ns/bad"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(kDurationAnnotation), std::string::npos) << r.message();
}

}  // namespace
}  // namespace quotient::simulate
