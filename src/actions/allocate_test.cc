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
