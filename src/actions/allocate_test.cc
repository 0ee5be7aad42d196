// The allocate action on small clusters built in C++; each expectation follows from
// docs/design/allocate.md, worked out in the comments.
#include "actions/allocate/allocate.h"

#include <gtest/gtest.h>

#include "actions/fit_errors.h"
#include "actions/job_tasks.h"
#include "actions/node_fit.h"
#include "builders/objects.h"
#include "core/snapshot_builder.h"

namespace quotient::actions {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

class AllocateTest : public ::testing::Test {
 protected:
  void Run() {
    snapshot_ = core::BuildSnapshot(objects_, core::SnapshotOptions{}).snapshot;
    session_ = std::make_unique<framework::Session>(snapshot_, config_);
    AllocateAction().Execute(*session_);
  }
  // "kind pod node" for every decision, in order.
  std::vector<std::string> Decisions() const {
    std::vector<std::string> out;
    for (const framework::Decision& d : session_->decisions()) {
      out.push_back(std::string(framework::DecisionKindName(d.kind)) + " " + d.pod + " " + d.node);
    }
    return out;
  }
  std::string Reason(std::string_view job) const {
    const auto& r = session_->JobReasons(snapshot_.FindJob(job));
    return r.empty() ? "" : r.front();
  }

  core::ClusterObjects objects_;
  framework::SchedulerConfig config_;
  core::Snapshot snapshot_;
  std::unique_ptr<framework::Session> session_;
};

TEST_F(AllocateTest, GangIsAllOrNothing) {
  // Two nodes with 2 GPUs each: a gang of 3 x 2 GPUs cannot fit (2 pods at most), so nothing of
  // it is bound; a gang of 2 x 2 GPUs then takes both nodes.
  objects_.nodes = {MakeNode("n1").Gpus(2), MakeNode("n2").Gpus(2)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pod_groups = {MakeGroup("ns", "big").Queue("q").MinMember(3),
                         MakeGroup("ns", "small").Queue("q").MinMember(2)};
  for (int i = 0; i < 3; ++i) {
    objects_.pods.push_back(
        MakePod("ns", "big-" + std::to_string(i)).Group("big").Gpus(2).Created(100));
  }
  for (int i = 0; i < 2; ++i) {
    objects_.pods.push_back(
        MakePod("ns", "small-" + std::to_string(i)).Group("small").Gpus(2).Created(200));
  }
  Run();
  // big goes first (same priority, both below minimum, big is older): big-0 on n1, big-1 on n2,
  // big-2 nowhere -> undone.
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"bind ns/small-0 n1", "bind ns/small-1 n2"}));
  EXPECT_EQ(Reason("ns/big"),
            "Resources were found for 2 pods while 3 are required for gang scheduling. "
            "Additional pods cannot be scheduled due to: 0/2 nodes are available: 2 node(s) "
            "didn't have enough resources: GPUs.");
}

TEST_F(AllocateTest, AGangWithAPipelinedMemberIsWhollyPipelined) {
  // n1: 2 GPUs, both held by a pod that is terminating. n2: 1 free GPU. Gang of 2 x 1 GPU:
  // pod 0 prefers n2 (fits on idle, +100), pod 1 can only wait for n1's releasing GPUs ->
  // pipelined, so pod 0 is pipelined too.
  objects_.nodes = {MakeNode("n1").Gpus(2), MakeNode("n2").Gpus(1)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "old").Queue("q").Gpus(2).RunningOn("n1").Deleting());
  objects_.pod_groups = {MakeGroup("ns", "gang").Queue("q").MinMember(2)};
  objects_.pods.push_back(MakePod("ns", "g-0").Group("gang").Gpus(1));
  objects_.pods.push_back(MakePod("ns", "g-1").Group("gang").Gpus(1));
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"pipeline ns/g-0 n2", "pipeline ns/g-1 n1"}));
}

TEST_F(AllocateTest, APipelinedPodWaitsForReleasingGpusAndLeavesFreeOnesToOthers) {
  // n1: 4 GPUs: 2 held by a terminating pod, 1 by a running one, 1 free. n2: 2 free GPUs.
  // Gang of 2 x 2 GPUs: pod 0 fits n2's idle GPUs, pod 1 only n1 once the terminating pod is
  // gone -> both pipelined; pod 1 takes n1's 2 releasing GPUs, not the free one (KAI charges a
  // Pipelined task to the node's releasing resources). The 1-GPU job after it then starts on
  // n1's free GPU now; had the pipelined pod taken it, nothing would be left for it.
  objects_.nodes = {MakeNode("n1").Gpus(4), MakeNode("n2").Gpus(2)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "old").Queue("q").Gpus(2).RunningOn("n1").Deleting());
  objects_.pods.push_back(MakePod("ns", "run").Queue("q").Gpus(1).RunningOn("n1"));
  objects_.pod_groups = {MakeGroup("ns", "gang").Queue("q").MinMember(2)};
  objects_.pods.push_back(MakePod("ns", "g-0").Group("gang").Gpus(2).Created(100));
  objects_.pods.push_back(MakePod("ns", "g-1").Group("gang").Gpus(2).Created(100));
  objects_.pods.push_back(MakePod("ns", "small").Queue("q").Gpus(1).Created(200));
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"pipeline ns/g-0 n2", "pipeline ns/g-1 n1",
                                                   "bind ns/small n1"}));
}

TEST_F(AllocateTest, ASubtreeJustPoppedFromCompetesWithItsLastQueuesNextJob) {
  // KAI's job order (job_order_by_queue.go) re-sorts a parent's children only when a Pop passes
  // through it, and a parent stands for itself with the job of the child at its top as it
  // stands (getBestJobFromNode). One node with 2 GPUs; trees a(1) > a-1(2) > a-1-1(2) and
  // b(4) > b-1(1) > {b-1-1(1), b-1-2(unlimited)}; jobs of 1 GPU each but b-1-2's second (4).
  // Pop 1: b-1-2's oldest job (both subtrees starved, b's share with it 1/4 < a's 1/1).
  // Pop 2: b is marked, so the top level is compared again, but b still stands with b-1-2's
  // next job, the 4-GPU one: b's share with it (1 + 4) / 4 > a's (0 + 1) / 1, so a goes, and
  // takes the last GPU. Had b stood with its best job (b-1-1's, (1 + 1) / 4), b-1-1 would have
  // gone first.
  objects_.nodes = {MakeNode("n").Gpus(2)};
  objects_.queues = {MakeQueue("a").Gpu(1, -1, 1),
                     MakeQueue("a-1").Parent("a").Gpu(2, -1, 1),
                     MakeQueue("a-1-1").Parent("a-1").Gpu(2, -1, 1),
                     MakeQueue("b").Gpu(4, -1, 1),
                     MakeQueue("b-1").Parent("b").Gpu(1, -1, 1),
                     MakeQueue("b-1-1").Parent("b-1").Gpu(1, -1, 1),
                     MakeQueue("b-1-2").Parent("b-1").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "b12-first").Queue("b-1-2").Gpus(1).Created(100));
  objects_.pods.push_back(MakePod("ns", "a11").Queue("a-1-1").Gpus(1).Created(200));
  objects_.pods.push_back(MakePod("ns", "b12-big").Queue("b-1-2").Gpus(4).Created(300));
  objects_.pods.push_back(MakePod("ns", "b11").Queue("b-1-1").Gpus(1).Created(400));
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"bind ns/b12-first n", "bind ns/a11 n"}));
}

TEST_F(AllocateTest, ACpuOnlyPodPrefersANodeWithASharedGpuInUse) {
  // KAI's gpusharingorder scores a node with a shared GPU in use that has room for the pod's GPU
  // memory; a pod asking for no GPU needs none, so such a node wins (10000 points, above
  // nodeavailability and nodeplacement). n2 (1 GPU) holds two halves; n1 (4 GPUs) is empty.
  // The CPU-only pod goes to n2 although both are equally free of CPU.
  objects_.nodes = {MakeNode("n1").Gpus(4), MakeNode("n2").Gpus(1)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(
      MakePod("ns", "half-1").Queue("q").Annotation("gpu-fraction", "0.5").Created(100));
  objects_.pods.push_back(
      MakePod("ns", "half-2").Queue("q").Annotation("gpu-fraction", "0.5").Created(100));
  objects_.pods.push_back(MakePod("ns", "cpu").Queue("q").Cpu("1").Created(200));
  Run();
  EXPECT_EQ(Decisions(),
            (std::vector<std::string>{"bind ns/half-1 n2", "bind ns/half-2 n2", "bind ns/cpu n2"}));
}

TEST_F(AllocateTest, ElasticJobsGrowOnePodPerTurnAndInterleave) {
  // One node, 4 GPUs. Queues a and b (equal quotas) each have a job of minMember 1 with 3 pods.
  // After each job has its minimum, growth alternates by queue order (smaller dominant share
  // first, ties to the older queue a): a, b, a, b... until the 4 GPUs are used.
  objects_.nodes = {MakeNode("n1").Gpus(4)};
  objects_.queues = {MakeQueue("a").Gpu(2, -1, 1).Created(1),
                     MakeQueue("b").Gpu(2, -1, 1).Created(2)};
  for (const char* q : {"a", "b"}) {
    objects_.pod_groups.push_back(MakeGroup("ns", std::string("job-") + q).Queue(q).MinMember(1));
    for (int i = 0; i < 3; ++i) {
      objects_.pods.push_back(MakePod("ns", std::string(q) + "-" + std::to_string(i))
                                  .Group(std::string("job-") + q)
                                  .Gpus(1));
    }
  }
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"bind ns/a-0 n1", "bind ns/b-0 n1",
                                                   "bind ns/a-1 n1", "bind ns/b-1 n1"}));
}

TEST_F(AllocateTest, LeaderTasksAndTaskPriorityComeFirst) {
  objects_.nodes = {MakeNode("n1").Gpus(1).Cpu("64")};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pod_groups = {MakeGroup("ns", "pt").Queue("q").MinMember(1)};
  objects_.pods.push_back(MakePod("ns", "a-worker").Group("pt").Gpus(1).Created(1));
  objects_.pods.push_back(MakePod("ns", "b-prio")
                              .Group("pt")
                              .Gpus(1)
                              .Created(1)
                              .Label("kai.scheduler/task-priority", "5"));
  objects_.pods.push_back(MakePod("ns", "z-master")
                              .Group("pt")
                              .Gpus(1)
                              .Created(9)
                              .Label("training.kubeflow.org/job-role", "master"));
  snapshot_ = core::BuildSnapshot(objects_, core::SnapshotOptions{}).snapshot;
  session_ = std::make_unique<framework::Session>(snapshot_, config_);
  const TasksToAllocate t = SelectTasks(*session_, snapshot_.jobs[0]);
  ASSERT_EQ(t.pods.size(), 1u);
  EXPECT_EQ(snapshot_.pods[static_cast<size_t>(t.pods[0])].key, "ns/z-master");
  std::vector<Index> all = PendingTasks(*session_, snapshot_.jobs[0].sub_groups[0]);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(snapshot_.pods[static_cast<size_t>(all[1])].key, "ns/b-prio");
  EXPECT_EQ(snapshot_.pods[static_cast<size_t>(all[2])].key, "ns/a-worker");
}

TEST_F(AllocateTest, FractionsPackOntoTheFullestSharedGpu) {
  // n1 has GPU group g (0.5 used) and 3 free GPUs. A 0.25 fraction joins g (gpupack: the most
  // used shared GPU with room), then a 0.5 fraction does not fit g (0.75 + 0.5 > 1) and opens a
  // new group on the first free device.
  objects_.nodes = {MakeNode("n1").Gpus(4)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "running")
                              .Queue("q")
                              .Annotation("gpu-fraction", "0.5")
                              .Label("runai-gpu-group", "g")
                              .RunningOn("n1"));
  objects_.pods.push_back(
      MakePod("ns", "p1").Queue("q").Annotation("gpu-fraction", "0.25").Created(1));
  objects_.pods.push_back(
      MakePod("ns", "p2").Queue("q").Annotation("gpu-fraction", "0.5").Created(2));
  Run();
  ASSERT_EQ(session_->decisions().size(), 2u);
  EXPECT_EQ(session_->decisions()[0].gpu_groups, std::vector<std::string>{"g"});
  EXPECT_EQ(session_->decisions()[1].gpu_groups, std::vector<std::string>{"n1-gpu1"});
}

TEST_F(AllocateTest, SpreadPlacesOnTheEmptierNode) {
  // n1 has 3 of 4 GPUs free, n2 all 4: bin-pack picks n1, spread picks n2.
  objects_.nodes = {MakeNode("n1").Gpus(4), MakeNode("n2").Gpus(4)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "run").Queue("q").Gpus(1).RunningOn("n1"));
  objects_.pods.push_back(MakePod("ns", "new").Queue("q").Gpus(1));
  Run();
  EXPECT_EQ(Decisions(), std::vector<std::string>{"bind ns/new n1"});
  config_.tiers = {
      framework::Tier{{framework::PluginOption{"nodeplacement", {{"gpu", "spread"}}}}}};
  Run();
  EXPECT_EQ(Decisions(), std::vector<std::string>{"bind ns/new n2"});
}

TEST_F(AllocateTest, AFractionCountsANodeWithIdleGpusAvailableThoughItsGpuMustWait) {
  // KAI's nodeavailability (IsTaskAllocatable) counts, for a fraction, the node's idle whole
  // GPUs plus the groups in use that fit it counting releasing co-tenants; which device the pod
  // then takes does not enter. Spread: n1 (4 GPUs) has group g, half held by a running pod and
  // half by a terminating one, and 3 free GPUs; n2 (4 GPUs) has group h with half free, a
  // running 1-GPU pod and 2 free GPUs. Both nodes fit the half on a shared GPU in use
  // (gpusharingorder) and both are available, so spread decides: n1 has 3 of 4 GPUs nobody
  // holds, n2 2 of 4. On n1 the pod takes g, the fuller shared GPU, and waits for its
  // terminating co-tenant: pipelined. (Counting n1 unavailable because g must wait would send
  // it to n2.)
  objects_.nodes = {MakeNode("n1").Gpus(4), MakeNode("n2").Gpus(4)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  const auto half_on = [&](const std::string& name, const std::string& node,
                           const std::string& group) {
    return MakePod("ns", name)
        .Queue("q")
        .Annotation("gpu-fraction", "0.5")
        .Label("runai-gpu-group", group)
        .RunningOn(node);
  };
  objects_.pods.push_back(half_on("g-run", "n1", "g"));
  objects_.pods.push_back(half_on("g-going", "n1", "g").Deleting());
  objects_.pods.push_back(half_on("h-run", "n2", "h"));
  objects_.pods.push_back(MakePod("ns", "whole").Queue("q").Gpus(1).RunningOn("n2"));
  objects_.pods.push_back(MakePod("ns", "p").Queue("q").Annotation("gpu-fraction", "0.5"));
  config_.tiers = {
      framework::Tier{{framework::PluginOption{"gpupack", {}},
                       framework::PluginOption{"nodeplacement", {{"gpu", "spread"}}}}}};
  Run();
  EXPECT_EQ(Decisions(), std::vector<std::string>{"pipeline ns/p n1"});
  ASSERT_EQ(session_->decisions().size(), 1u);
  EXPECT_EQ(session_->decisions()[0].gpu_groups, std::vector<std::string>{"g"});
}

TEST_F(AllocateTest, APodJoiningAGroupOnlyPipelinedPodsHoldWaitsWithThem) {
  // n1: 2 GPUs and 4 cores, all 4 held by a terminating CPU pod. p1 (half a GPU, 2 cores) can
  // only wait for those cores: pipelined, opening group n1-gpu0 on a free GPU. p2 (a quarter,
  // no cores) packs onto the fullest shared GPU with room, n1-gpu0; that group is not allocated
  // yet (KAI's EnoughIdleResourcesOnGpu: a group missing from AllocatedSharedGPUsMemory), so p2
  // waits with p1 rather than starting on a GPU nobody has started on.
  objects_.nodes = {MakeNode("n1").Gpus(2).Cpu("4")};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "cpu").Queue("q").Cpu("4").RunningOn("n1").Deleting());
  objects_.pods.push_back(
      MakePod("ns", "p1").Queue("q").Annotation("gpu-fraction", "0.5").Cpu("2").Created(1));
  objects_.pods.push_back(
      MakePod("ns", "p2").Queue("q").Annotation("gpu-fraction", "0.25").Created(2));
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"pipeline ns/p1 n1", "pipeline ns/p2 n1"}));
  ASSERT_EQ(session_->decisions().size(), 2u);
  EXPECT_EQ(session_->decisions()[1].gpu_groups, session_->decisions()[0].gpu_groups);
}

TEST_F(AllocateTest, AGroupAnAllocationOpenedStaysJoinableWhenItsPodsWait) {
  // n1: 2 GPUs and 4 cores, 2 of them held by a terminating CPU pod. Gang of 2 pods, each a
  // quarter GPU and 2 cores: g-0 fits now and opens group n1-gpu0; g-1 packs onto it but must
  // wait for the cores -> the gang is pipelined (no GPU is being given back, so n1-gpu0 stays
  // where it is). The group was allocated once, so it is not one only pipelined pods ever
  // joined (KAI keeps its key in AllocatedSharedGPUsMemory): p (a quarter, no cores) packs onto
  // it and starts now.
  objects_.nodes = {MakeNode("n1").Gpus(2).Cpu("4")};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "cpu").Queue("q").Cpu("2").RunningOn("n1").Deleting());
  objects_.pod_groups = {MakeGroup("ns", "gang").Queue("q").MinMember(2)};
  for (int i = 0; i < 2; ++i) {
    objects_.pods.push_back(MakePod("ns", "g-" + std::to_string(i))
                                .Group("gang")
                                .Annotation("gpu-fraction", "0.25")
                                .Cpu("2")
                                .Created(100));
  }
  objects_.pods.push_back(
      MakePod("ns", "p").Queue("q").Annotation("gpu-fraction", "0.25").Created(200));
  Run();
  EXPECT_EQ(Decisions(),
            (std::vector<std::string>{"pipeline ns/g-0 n1", "pipeline ns/g-1 n1", "bind ns/p n1"}));
  ASSERT_EQ(session_->decisions().size(), 3u);
  EXPECT_EQ(session_->decisions()[2].gpu_groups, std::vector<std::string>{"n1-gpu0"});
}

TEST_F(AllocateTest, AGangMemberTurnedPipelineGivesItsFreeGpuBack) {
  // n1: 3 GPUs, two held by terminating pods, one free. Gang of 2 x 1 GPU: g-0 takes the free
  // GPU, g-1 can only wait for a terminating pod's -> the gang is pipelined. KAI then charges
  // g-0 to the node's releasing GPUs and hands its idle one back (ConvertAllocatedToPipelined):
  // g-0 moves to the other releasing GPU, and the 1-GPU job after the gang starts now on the
  // free one. Had g-0 kept it, that job would wait too.
  objects_.nodes = {MakeNode("n1").Gpus(3)};
  objects_.queues = {MakeQueue("q").Gpu(-1, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "old-0").Queue("q").Gpus(1).RunningOn("n1").Deleting());
  objects_.pods.push_back(MakePod("ns", "old-1").Queue("q").Gpus(1).RunningOn("n1").Deleting());
  objects_.pod_groups = {MakeGroup("ns", "gang").Queue("q").MinMember(2)};
  objects_.pods.push_back(MakePod("ns", "g-0").Group("gang").Gpus(1).Created(100));
  objects_.pods.push_back(MakePod("ns", "g-1").Group("gang").Gpus(1).Created(100));
  objects_.pods.push_back(MakePod("ns", "small").Queue("q").Gpus(1).Created(200));
  Run();
  EXPECT_EQ(Decisions(), (std::vector<std::string>{"pipeline ns/g-0 n1", "pipeline ns/g-1 n1",
                                                   "bind ns/small n1"}));
}

TEST_F(AllocateTest, AQueueWhoseLastJobWasTakenLeavesItsParentsChoiceUntilItHasOneAgain) {
  // KAI's job order prunes a queue left without jobs from its parent's heap when the job is
  // popped (handlePopFromNode), so the parent's top is chosen again then; a job pushed back
  // into it (elastic growth) makes a new node, which takes the top only by going before it.
  // One node, 8 GPUs; a(4) > a-1(15): a 3-pod gang (3 GPUs); b(4) > b-1(4): an elastic job of 2
  // pods x 2 GPUs, minimum 1; b-3(1): 1 GPU. Fair shares: a 3, b 5 (the GPU left over), b-1 4,
  // b-3 1. Shares with the job are allocated / max(deserved, fair share).
  // Pop 1: a (0 + 3) / 4 = 0.75; b stands with b-1's job (b-1 (0 + 2) / 4 = 0.5 before b-3's
  //   1 / 1): (0 + 2) / 5 = 0.4 -> b-1's first pod. b-1 is now empty and leaves b, whose top
  //   becomes b-3; pushed back, b-1 ties b-3 with its job (4 / 4 = 1 / 1) and has more without
  //   it (2 / 4 > 0), so b-3 stays on top.
  // Pop 2: b with b-3's job (2 + 1) / 5 = 0.6 < a's 0.75 -> b-3. (With b-1 still standing for b,
  //   (2 + 2) / 5 = 0.8 would have put a first.)
  // Pop 3: b with b-1's job asks 3 + 2 > its deserved 4, a 0 + 3 <= 4 -> a's gang. Pop 4: e-1.
  objects_.nodes = {MakeNode("n").Gpus(8)};
  objects_.queues = {
      MakeQueue("a").Gpu(4, -1, 1).Created(1), MakeQueue("a-1").Parent("a").Gpu(15, -1, 1),
      MakeQueue("b").Gpu(4, -1, 1).Created(2), MakeQueue("b-1").Parent("b").Gpu(4, -1, 1),
      MakeQueue("b-3").Parent("b").Gpu(1, -1, 1)};
  objects_.pod_groups = {MakeGroup("ns", "gang").Queue("a-1").MinMember(3),
                         MakeGroup("ns", "elastic").Queue("b-1").MinMember(1)};
  for (int i = 0; i < 3; ++i) {
    objects_.pods.push_back(
        MakePod("ns", "a-" + std::to_string(i)).Group("gang").Gpus(1).Created(100));
  }
  for (int i = 0; i < 2; ++i) {
    objects_.pods.push_back(
        MakePod("ns", "e-" + std::to_string(i)).Group("elastic").Gpus(2).Created(100));
  }
  objects_.pods.push_back(MakePod("ns", "b3").Queue("b-3").Gpus(1).Created(100));
  Run();
  EXPECT_EQ(Decisions(),
            (std::vector<std::string>{"bind ns/e-0 n", "bind ns/b3 n", "bind ns/a-0 n",
                                      "bind ns/a-1 n", "bind ns/a-2 n", "bind ns/e-1 n"}));
}

TEST_F(AllocateTest, APendingGpuMemoryRequestJustAboveTheQuotaIsNotWithinIt) {
  // KAI floors a node's GPU memory label to 100 MiB (81920 -> 81900) and counts a pending
  // gpu-memory pod as memory / that, unrounded: two pods of 40960 MiB ask for 1.000244 GPUs,
  // more than queue a's deserved 1, so a is not "under quota with the job" while b (4 GPUs,
  // deserved 4) is: b goes first and takes the node's 4 GPUs. (Rounded to the nearest
  // milli-GPU, a's 1.000 would tie b up to the allocatable shares, and a's 1 < 4 would win.)
  objects_.nodes = {MakeNode("n").Gpus(4).Label("nvidia.com/gpu.memory", "81920")};
  objects_.queues = {MakeQueue("a").Gpu(1, -1, 1).Created(1),
                     MakeQueue("b").Gpu(4, -1, 1).Created(2)};
  objects_.pod_groups = {MakeGroup("ns", "halves").Queue("a").MinMember(2)};
  for (int i = 0; i < 2; ++i) {
    objects_.pods.push_back(MakePod("ns", "half-" + std::to_string(i))
                                .Group("halves")
                                .Annotation("gpu-memory", "40960")
                                .Created(100));
  }
  objects_.pods.push_back(MakePod("ns", "four").Queue("b").Gpus(4).Created(100));
  Run();
  EXPECT_EQ(Decisions(), std::vector<std::string>{"bind ns/four n"});
}

TEST(FitErrors, SortedHistogram) {
  FitErrors e;
  e.set_nodes(4);
  e.Add("node(s) had untolerated taint {dedicated: infra}");
  e.Add("node(s) didn't have enough resources: GPUs");
  e.Add("node(s) had untolerated taint {dedicated: infra}");
  e.Add("node(s) didn't have enough resources: GPUs");
  EXPECT_EQ(e.Message(),
            "0/4 nodes are available: 2 node(s) didn't have enough resources: GPUs, 2 node(s) "
            "had untolerated taint {dedicated: infra}.");
}

TEST(NewGpuGroupName, UniqueOnTheNodeAndShortEnoughForALabel) {
  std::vector<framework::DeviceState> devices(2);
  EXPECT_EQ(NewGpuGroupName(devices, "n1", 1), "n1-gpu1");
  devices[0].group = "n1-gpu1";
  EXPECT_EQ(NewGpuGroupName(devices, "n1", 1), "n1-gpu1-2");
  const std::string long_name(80, 'x');
  const std::string name = NewGpuGroupName(devices, long_name, 0);
  EXPECT_LE(name.size(), 63u);
  EXPECT_EQ(name.rfind("gpu0-", 0), 0u);
}

}  // namespace
}  // namespace quotient::actions
