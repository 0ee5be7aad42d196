#include "scheduler/run.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::scheduler {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

const PodReport& PodOf(const RunReport& r, std::string_view key) {
  for (const PodReport& p : r.pods) {
    if (p.pod == key) return p;
  }
  static PodReport none;
  ADD_FAILURE() << "no pod " << key;
  return none;
}

core::ClusterObjects SmallCluster() {
  core::ClusterObjects o;
  o.nodes.push_back(MakeNode("n1").Gpus(4));
  o.queues.push_back(MakeQueue("team").Gpu(2, 3, 1));
  o.pods.push_back(MakePod("ns", "run").Queue("team").Gpus(1).RunningOn("n1"));
  o.pods.push_back(MakePod("ns", "wait").Queue("team").Gpus(1));
  o.pods.push_back(MakePod("ns", "big").Queue("team").Gpus(3));
  o.pods.push_back(MakePod("ns", "bad").Queue("team").Annotation("gpu-fraction", "1.7"));
  o.pods.push_back(MakePod("ns", "lost").Queue("nowhere"));
  o.pods.push_back(MakePod("kube", "other").Scheduler("default-scheduler").RunningOn("n1"));
  return o;
}

TEST(Run, ReportsStatusesAndActionableReasons) {
  const RunReport r = scheduler::Run(SmallCluster(), RunOptions{});
  ASSERT_EQ(r.cycles.size(), 1u);
  // Jobs of team in order: big (uid-big < uid-wait) fails its limit check, then wait fits n1.
  ASSERT_EQ(r.cycles[0].decisions.size(), 1u);
  EXPECT_EQ(r.cycles[0].decisions[0].pod, "ns/wait");
  // Only this scheduler's pods are reported.
  EXPECT_EQ(r.pods.size(), 5u);
  EXPECT_EQ(PodOf(r, "ns/run").status, "Running");
  EXPECT_EQ(PodOf(r, "ns/run").node, "n1");
  EXPECT_EQ(PodOf(r, "ns/run").pod_group, "ns/pg-run");
  EXPECT_EQ(PodOf(r, "ns/wait").status, "Bound");
  EXPECT_EQ(PodOf(r, "ns/wait").node, "n1");
  // Limit 3 GPUs, 1 allocated, big asks 3: over the limit.
  EXPECT_EQ(PodOf(r, "ns/big").reason.rfind("OverLimit: queue team has reached its limit", 0), 0u);
  EXPECT_EQ(PodOf(r, "ns/bad").reason.rfind("invalid pod: annotation gpu-fraction", 0), 0u);
  EXPECT_EQ(PodOf(r, "ns/lost").reason, "QueueDoesNotExist: queue nowhere does not exist");
}

TEST(Run, ACycleWithoutThePodReportStillDecidesAndReportsQueues) {
  core::SnapshotOptions snapshot_options;
  const core::SnapshotBuild build = core::BuildSnapshot(SmallCluster(), snapshot_options);
  RunOptions options;
  const RunReport full = RunCycle(build, options);
  options.report_pods_and_groups = false;
  const RunReport light = RunCycle(build, options);
  EXPECT_EQ(full.pods.size(), 5u);
  EXPECT_TRUE(light.pods.empty());
  EXPECT_TRUE(light.pod_groups.empty());
  ASSERT_EQ(light.cycles.size(), 1u);
  ASSERT_EQ(light.cycles[0].decisions.size(), 1u);
  EXPECT_EQ(light.cycles[0].decisions[0].pod, "ns/wait");
  ASSERT_EQ(light.queues.size(), 1u);
  EXPECT_EQ(light.queues[0].fair_share, full.queues[0].fair_share);
  EXPECT_EQ(light.queues[0].allocated, full.queues[0].allocated);
}

TEST(Run, QueueReportCarriesQuotaAndShares) {
  const RunReport r = scheduler::Run(SmallCluster(), RunOptions{});
  ASSERT_EQ(r.queues.size(), 1u);
  const QueueReport& q = r.queues[0];
  EXPECT_EQ(q.name, "team");
  EXPECT_EQ(q.deserved[core::ShareResource::kGpu], core::Bound::Of(core::Quantity(2000)));
  EXPECT_EQ(q.limit[core::ShareResource::kGpu], core::Bound::Of(core::Quantity(3000)));
  EXPECT_TRUE(q.limit[core::ShareResource::kCpu].is_unlimited());
  // Requested: run 1 + wait 1 + big 3 = 5 (bad and lost ask for nothing).
  EXPECT_EQ(q.requested[core::ShareResource::kGpu], core::Quantity(5000));
  EXPECT_EQ(q.allocated[core::ShareResource::kGpu], core::Quantity(2000));  // run + wait
  // Alone at the top, 4 GPUs: deserved min(2, min(limit 3, request 5)) = 2, then over quota its
  // remaining min(3, 5) - 2 = 1 fits the 2 offered: 3, capped by its limit.
  EXPECT_EQ(q.fair_share[core::ShareResource::kGpu], core::Quantity(3000));
}

TEST(Run, GangsReportTheirMinimumAndReadiness) {
  core::ClusterObjects o;
  o.queues.push_back(MakeQueue("q").Gpu(0, -1, 1));
  o.pod_groups.push_back(MakeGroup("ns", "gang").Queue("q").MinMember(3));
  o.pods.push_back(MakePod("ns", "g0").Group("gang"));
  o.pods.push_back(MakePod("ns", "g1").Group("gang"));
  o.pod_groups.push_back(MakeGroup("ns", "empty").Queue("q"));
  const RunReport r = scheduler::Run(o, RunOptions{});
  ASSERT_EQ(r.pod_groups.size(), 2u);
  const PodGroupReport& empty = r.pod_groups[0];
  EXPECT_EQ(empty.pod_group, "ns/empty");
  EXPECT_EQ(empty.reasons, std::vector<std::string>{"the pod group has no pods"});
  const PodGroupReport& gang = r.pod_groups[1];
  EXPECT_EQ(gang.min_member, 3);
  EXPECT_EQ(gang.status, "Pending");
  ASSERT_EQ(gang.reasons.size(), 1u);
  EXPECT_EQ(gang.reasons[0],
            "NotReady: the gang needs 3 pods, currently 2 exist and 0 of them are gated");
  EXPECT_EQ(gang.not_ready,
            "Job is not ready for scheduling. Waiting for 3 pods, currently 2 exist, 0 are gated");
  EXPECT_TRUE(empty.not_ready.empty());  // no pods at all: nothing to wait for yet
}

TEST(Run, GroupResourcesSplitAllocatedNonPreemptibleAndRequested) {
  core::ClusterObjects o;
  o.nodes.push_back(MakeNode("n1").Gpus(8));
  o.queues.push_back(MakeQueue("parent").Gpu(8, -1, 1));
  o.queues.push_back(MakeQueue("q").Parent("parent").Gpu(8, -1, 1));
  o.priority_classes.push_back(testing::PriorityClass("inference", 125));
  o.pod_groups.push_back(MakeGroup("ns", "serve").Queue("q").PriorityClass("inference"));
  o.pods.push_back(MakePod("ns", "serve-0").Group("serve").Gpus(2).RunningOn("n1"));
  o.pods.push_back(MakePod("ns", "serve-1").Group("serve").Gpus(16));  // never fits
  o.pod_groups.push_back(MakeGroup("ns", "train").Queue("q"));
  o.pods.push_back(MakePod("ns", "train-0").Group("train").Gpus(1).RunningOn("n1"));
  const RunReport r = scheduler::Run(o, RunOptions{});
  ASSERT_EQ(r.pod_groups.size(), 2u);
  const PodGroupReport& serve = r.pod_groups[0];
  // Priority 125 is not preemptible: what it holds is non-preemptible too.
  EXPECT_EQ(serve.allocated[core::ShareResource::kGpu], core::Quantity(2000));
  EXPECT_EQ(serve.allocated_non_preemptible[core::ShareResource::kGpu], core::Quantity(2000));
  EXPECT_EQ(serve.requested[core::ShareResource::kGpu], core::Quantity(18000));
  EXPECT_TRUE(serve.any_allocated);
  const PodGroupReport& train = r.pod_groups[1];
  EXPECT_EQ(train.allocated[core::ShareResource::kGpu], core::Quantity(1000));
  EXPECT_EQ(train.allocated_non_preemptible[core::ShareResource::kGpu], core::Quantity(0));
  // The queue sums both; the parent lists its child.
  ASSERT_EQ(r.queues.size(), 2u);
  EXPECT_EQ(r.queues[0].name, "parent");
  EXPECT_EQ(r.queues[0].children, std::vector<std::string>{"q"});
  EXPECT_EQ(r.queues[1].allocated_non_preemptible[core::ShareResource::kGpu], core::Quantity(2000));
  EXPECT_EQ(r.queues[1].allocated[core::ShareResource::kGpu], core::Quantity(3000));
}

TEST(Run, TheDecisionListenerHearsEachCommittedDecisionWithItsPodGroup) {
  RunOptions options;
  std::vector<std::string> heard;
  options.on_decision = [&](const Decision& d, const std::string& group) {
    heard.push_back(std::string(framework::DecisionKindName(d.kind)) + " " + d.pod + " " + group);
  };
  const RunReport r = scheduler::Run(SmallCluster(), options);
  // The same decisions the report lists, as they were committed.
  ASSERT_EQ(r.cycles[0].decisions.size(), 1u);
  EXPECT_EQ(heard, std::vector<std::string>{"bind ns/wait ns/pg-wait"});
}

TEST(Run, TimesEachPhaseWithTheInjectedClock) {
  RunOptions options;
  options.config.actions = {"allocate", "reclaim"};
  int64_t ticks = 0;
  // Each reading is 1 ms after the previous one: every phase lasts exactly 1 ms.
  options.monotonic_clock = [&] { return std::chrono::milliseconds(ticks++); };
  options.cycles = 2;
  const RunReport r = scheduler::Run(SmallCluster(), options);
  ASSERT_EQ(r.cycles.size(), 2u);
  for (const CycleReport& cycle : r.cycles) {
    std::vector<std::string> phases;
    for (const PhaseTiming& t : cycle.timings) {
      phases.push_back(t.phase);
      EXPECT_EQ(t.duration, std::chrono::milliseconds(1)) << t.phase;
    }
    EXPECT_EQ(phases, (std::vector<std::string>{"build_snapshot", "open_session", "allocate",
                                                "reclaim", "close_session"}))
        << "cycle " << cycle.index;
  }
}

TEST(Run, RunsTheRequestedNumberOfCyclesAndBoundPodsStayBound) {
  RunOptions options;
  options.cycles = 3;
  const RunReport r = scheduler::Run(SmallCluster(), options);
  ASSERT_EQ(r.cycles.size(), 3u);
  EXPECT_EQ(r.cycles[2].index, 2);
  EXPECT_EQ(r.cycles[0].decisions.size(), 1u);
  // wait runs from cycle 1 on; nothing else changes.
  EXPECT_TRUE(r.cycles[1].decisions.empty());
  EXPECT_TRUE(r.cycles[2].decisions.empty());
  EXPECT_EQ(PodOf(r, "ns/wait").status, "Bound");
}

TEST(Run, FinishedPodsMakeTheGroupSucceeded) {
  core::ClusterObjects o;
  o.queues.push_back(MakeQueue("q"));
  o.pods.push_back(MakePod("ns", "done").Queue("q").Phase(core::PodPhase::kSucceeded));
  const RunReport r = scheduler::Run(o, RunOptions{});
  EXPECT_EQ(r.pods[0].status, "Succeeded");
  EXPECT_EQ(r.pod_groups[0].status, "Succeeded");
}

}  // namespace
}  // namespace quotient::scheduler
