// The victim solver on small clusters; expectations follow docs/design/preemption.md.
#include "actions/victim_solver.h"

#include <gtest/gtest.h>

#include "actions/allocate/allocate.h"
#include "actions/preempt/preempt.h"
#include "actions/reclaim/reclaim.h"
#include "builders/objects.h"
#include "core/snapshot_builder.h"

namespace quotient::actions {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

class VictimSolver : public ::testing::Test {
 protected:
  std::vector<std::string> Run(framework::Action&& action) {
    snapshot_ = core::BuildSnapshot(objects_, core::SnapshotOptions{}).snapshot;
    session_ = std::make_unique<framework::Session>(snapshot_, config_);
    action.Execute(*session_);
    std::vector<std::string> out;
    for (const framework::Decision& d : session_->decisions()) {
      out.push_back(std::string(framework::DecisionKindName(d.kind)) + " " + d.pod + " " + d.node);
    }
    return out;
  }

  core::ClusterObjects objects_;
  framework::SchedulerConfig config_;
  core::Snapshot snapshot_;
  std::unique_ptr<framework::Session> session_;
};

TEST_F(VictimSolver, DropsVictimsThePreemptorDoesNotNeed) {
  // Queue b (quota 0) runs one-GPU pods on n1..n3 (4 GPUs each), created round-robin over the
  // nodes. Queue a (quota 4) needs 4 GPUs on one node. Victims go newest first, so a node is
  // wholly freed only after 10 victims (n3-3, n2-3, n1-3, ..., n3-0): KAI would evict all 10.
  // Pruning keeps only the four on the node the preemptor uses.
  objects_.nodes = {MakeNode("n1").Gpus(4), MakeNode("n2").Gpus(4), MakeNode("n3").Gpus(4)};
  objects_.queues = {MakeQueue("a").Gpu(4, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
  int created = 0;
  for (int k = 0; k < 4; ++k) {
    for (const char* node : {"n1", "n2", "n3"}) {
      objects_.pods.push_back(MakePod("ns", std::string("b-") + node + "-" + std::to_string(k))
                                  .Queue("b")
                                  .Gpus(1)
                                  .RunningOn(node)
                                  .Created(++created));
    }
  }
  objects_.pod_groups = {MakeGroup("ns", "a-job").Queue("a").MinMember(1)};
  objects_.pods.push_back(MakePod("ns", "a-0").Group("a-job").Gpus(4).Created(100));
  const std::vector<std::string> d = Run(ReclaimAction());
  // Four evictions (all on one node) and the pipelined reclaimer.
  ASSERT_EQ(d.size(), 5u);
  int evictions_on_pipeline_node = 0;
  const std::string target = d.back().substr(d.back().rfind(' ') + 1);
  for (size_t k = 0; k + 1 < d.size(); ++k) {
    EXPECT_EQ(d[k].rfind("evict ", 0), 0u) << d[k];
    evictions_on_pipeline_node += d[k].ends_with(" " + target);
  }
  EXPECT_EQ(evictions_on_pipeline_node, 4);
  EXPECT_EQ(d.back(), "pipeline ns/a-0 n3");
}

// Pruning may leave no victim in reclaim: queue b (GPU quota and limit 0) runs b-0 on one GPU of
// n1's two; a's half-GPU reclaimer is placed on the free GPU in the scenario that takes b-0 (b-0
// cannot be placed again under its limit and would stay evicted, as KAI leaves it), and the
// scenario works without b-0, so nothing is evicted and a-0 is pipelined.
TEST_F(VictimSolver, APreemptorThatFitsInFreeRoomKeepsNoVictim) {
  objects_.nodes = {MakeNode("n1").Gpus(2)};
  objects_.queues = {MakeQueue("a").Gpu(1, -1, 1), MakeQueue("b").Gpu(0, 0, 1)};
  objects_.pods.push_back(MakePod("ns", "b-0").Queue("b").Gpus(1).RunningOn("n1").Created(1));
  objects_.pod_groups = {MakeGroup("ns", "a-job").Queue("a").MinMember(1)};
  objects_.pods.push_back(
      MakePod("ns", "a-0").Group("a-job").Annotation("gpu-fraction", "0.5").Created(100));
  EXPECT_EQ(Run(ReclaimAction()), std::vector<std::string>{"pipeline ns/a-0 n1"});
}

// KAI's scheduling signatures (minimal_job_comparison.go): after `big` (4 GPUs: queue a may
// reclaim them, but b-0 is non-preemptible, so only b-1's GPU and the 2 free ones can be had)
// fails to reclaim, a later job of its queue with the same constraints is searched for only if
// it is easier: smaller in one resource of its pod and larger in none. `small` asks for 1 GPU
// and would be pipelined (b-1 is evicted, placed back and unevicted: no victim); with 250m CPU
// more than `big` asks for, it is not easier and is passed over. The KAI oracle decides both
// cases the same way on this cluster written as objects.
class SchedulingSignatures : public VictimSolver {
 protected:
  std::vector<std::string> Reclaim(const char* small_cpu) {
    objects_.nodes = {MakeNode("n1").Gpus(4)};
    objects_.queues = {MakeQueue("a").Gpu(8, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
    objects_.priority_classes = {testing::PriorityClass("build", 100)};
    objects_.pod_groups = {MakeGroup("ns", "b0").Queue("b").MinMember(1).PriorityClass("build"),
                           MakeGroup("ns", "b1").Queue("b").MinMember(1),
                           MakeGroup("ns", "big").Queue("a").MinMember(1),
                           MakeGroup("ns", "small").Queue("a").MinMember(1)};
    objects_.pods = {MakePod("ns", "b0-0").Group("b0").Gpus(1).RunningOn("n1").Created(1),
                     MakePod("ns", "b1-0").Group("b1").Gpus(1).RunningOn("n1").Created(2),
                     MakePod("ns", "big-0").Group("big").Gpus(4).Created(10)};
    MakePod small = MakePod("ns", "small-0").Group("small").Gpus(1).Created(20);
    if (small_cpu != nullptr) small.Cpu(small_cpu);
    objects_.pods.push_back(small);
    return Run(ReclaimAction());
  }
};

TEST_F(SchedulingSignatures, AJobNotEasierThanOneThatFailedIsPassedOver) {
  EXPECT_TRUE(Reclaim("250m").empty());
}

TEST_F(SchedulingSignatures, AJobEasierThanOneThatFailedIsSearchedFor) {
  EXPECT_EQ(Reclaim(nullptr), std::vector<std::string>{"pipeline ns/small-0 n1"});
}

TEST_F(VictimSolver, AnElasticVictimIsNeverLeftBelowItsMinimum) {
  // One 4-GPU node; an elastic job (minMember 2, four 1-GPU pods); a 75-priority preemptor asks
  // for 3 GPUs. Surplus pods go first (elastic-3, elastic-2); the third GPU needs the core unit
  // {elastic-0, elastic-1}, and then the whole job goes, elastic-2 included.
  objects_.nodes = {MakeNode("n1").Gpus(4)};
  objects_.queues = {MakeQueue("q").Gpu(4, -1, 1)};
  objects_.priority_classes = {testing::PriorityClass("train", 50),
                               testing::PriorityClass("build-preemptible", 75)};
  objects_.pod_groups = {
      MakeGroup("ns", "elastic").Queue("q").MinMember(2).PriorityClass("train"),
      MakeGroup("ns", "urgent").Queue("q").MinMember(1).PriorityClass("build-preemptible")};
  for (int k = 0; k < 4; ++k) {
    objects_.pods.push_back(MakePod("ns", "elastic-" + std::to_string(k))
                                .Group("elastic")
                                .Gpus(1)
                                .RunningOn("n1")
                                .Created(k + 1));
  }
  objects_.pods.push_back(MakePod("ns", "urgent-0").Group("urgent").Gpus(3).Created(10));
  const std::vector<std::string> d = Run(PreemptAction());
  EXPECT_EQ(d, (std::vector<std::string>{"evict ns/elastic-3 n1", "evict ns/elastic-2 n1",
                                         "evict ns/elastic-1 n1", "evict ns/elastic-0 n1",
                                         "pipeline ns/urgent-0 n1"}));
}

TEST_F(VictimSolver, APodPlacedThisCycleIsNoVictim) {
  // One 2-GPU node. b (quota 0) runs b-run (1 GPU); a (quota 2) waits for a-0 (2 GPUs), b for
  // b-new (1 GPU). Allocate: a-0 does not fit, b-new takes the free GPU. Reclaim for a-0 would
  // need b-new too, which allocate has just placed: KAI would evict it (its victims are every
  // alive pod); here it is no victim, b-run alone frees too little, and nothing is evicted
  // (docs/kai-differences.md, "Pods placed earlier in the same cycle are never victims").
  objects_.nodes = {MakeNode("n1").Gpus(2)};
  objects_.queues = {MakeQueue("a").Gpu(2, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "b-run").Queue("b").Gpus(1).RunningOn("n1").Created(1));
  objects_.pods.push_back(MakePod("ns", "b-new").Queue("b").Gpus(1).Created(2));
  objects_.pods.push_back(MakePod("ns", "a-0").Queue("a").Gpus(2).Created(3));
  snapshot_ = core::BuildSnapshot(objects_, core::SnapshotOptions{}).snapshot;
  session_ = std::make_unique<framework::Session>(snapshot_, config_);
  AllocateAction().Execute(*session_);
  ASSERT_EQ(session_->decisions().size(), 1u);
  EXPECT_EQ(session_->decisions()[0].pod, "ns/b-new");
  ReclaimAction().Execute(*session_);
  EXPECT_EQ(session_->decisions().size(), 1u) << session_->decisions().back().pod;
}

TEST_F(VictimSolver, PodsOnNodesMissingFromTheInputAreNeverVictims) {
  // b's newest pod runs on a node that is not in the input: it holds nothing here, so reclaim
  // skips it and takes the pod on n1 (regression: evicting it must not touch a node).
  objects_.nodes = {MakeNode("n1").Gpus(1)};
  objects_.queues = {MakeQueue("a").Gpu(1, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
  objects_.pods.push_back(MakePod("ns", "b-old").Queue("b").Gpus(1).RunningOn("n1").Created(1));
  objects_.pods.push_back(MakePod("ns", "b-ghost").Queue("b").Gpus(1).RunningOn("gone").Created(2));
  objects_.pods.push_back(MakePod("ns", "a-0").Queue("a").Gpus(1).Created(3));
  const std::vector<std::string> d = Run(ReclaimAction());
  EXPECT_EQ(d, (std::vector<std::string>{"evict ns/b-old n1", "pipeline ns/a-0 n1"}));
}

}  // namespace
}  // namespace quotient::actions

namespace quotient::actions {
namespace {

core::PodDisruptionBudgetObject Budget(std::string ns, std::string name, std::string app,
                                       int32_t allowed) {
  core::PodDisruptionBudgetObject pdb;
  pdb.meta.namespace_name = std::move(ns);
  pdb.meta.name = std::move(name);
  pdb.selector = core::LabelSelector{};
  pdb.selector->match_labels["app"] = std::move(app);
  pdb.disruptions_allowed = allowed;
  return pdb;
}

class VictimSolverBudgets : public VictimSolver {
 protected:
  // Queue b (quota 0) runs four 1-GPU pods on one 4-GPU node, b-3 the newest (the first
  // victim); queue a (quota 4) wants 2 GPUs back.
  void SetUp() override {
    objects_.nodes = {MakeNode("n1").Gpus(4)};
    objects_.queues = {MakeQueue("a").Gpu(4, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
    for (int k = 0; k < 4; ++k) {
      objects_.pods.push_back(MakePod("ns", "b-" + std::to_string(k))
                                  .Queue("b")
                                  .Gpus(1)
                                  .Label("app", k % 2 == 1 ? "odd" : "even")
                                  .RunningOn("n1")
                                  .Created(k + 1));
    }
    objects_.pod_groups = {MakeGroup("ns", "a-job").Queue("a").MinMember(1)};
    objects_.pods.push_back(MakePod("ns", "a-0").Group("a-job").Gpus(2).Created(100));
  }
};

TEST_F(VictimSolverBudgets, ProtectedPodsAreNotChosen) {
  // Newest first would take b-3 and b-2; b-3 and b-1 (app=odd) are protected, so the even ones
  // go instead.
  objects_.pod_disruption_budgets = {Budget("ns", "odd", "odd", 0)};
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-2 n1", "evict ns/b-0 n1", "pipeline ns/a-0 n1"}));
}

TEST_F(VictimSolverBudgets, ABudgetAllowsAsManyEvictionsAsItSays) {
  // One disruption allowed among the odd pods: b-3 may go, then b-1 may not; b-2 is next.
  objects_.pod_disruption_budgets = {Budget("ns", "odd", "odd", 1)};
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-3 n1", "evict ns/b-2 n1", "pipeline ns/a-0 n1"}));
}

TEST_F(VictimSolverBudgets, APodUnderTwoBudgetsIsNeverAVictim) {
  // The Eviction API refuses pods covered by two budgets, however generous.
  objects_.pod_disruption_budgets = {Budget("ns", "odd-1", "odd", 5),
                                     Budget("ns", "odd-2", "odd", 5)};
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-2 n1", "evict ns/b-0 n1", "pipeline ns/a-0 n1"}));
}

TEST_F(VictimSolverBudgets, NoReclaimWhenEveryCandidateIsProtected) {
  objects_.pod_disruption_budgets = {Budget("ns", "odd", "odd", 0),
                                     Budget("ns", "even", "even", 1)};
  EXPECT_TRUE(Run(ReclaimAction()).empty());
}

TEST_F(VictimSolverBudgets, BudgetsOfAnotherNamespaceDoNotApply) {
  objects_.pod_disruption_budgets = {Budget("other", "odd", "odd", 0)};
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-3 n1", "evict ns/b-2 n1", "pipeline ns/a-0 n1"}));
}

// KAI draws one elastic pod per pop and puts the job back as what it now is
// (pod_scenario_builder.go, addNextPotentialVictims; eviction_info.go, GetTasksToEvict), and its
// victim job order puts jobs above their minimum before jobs at it (elastic.go JobOrderFn,
// reversed). Two elastic jobs of queue b (minMember 1, two 1-GPU pods each) fill a 4-GPU node;
// a's job needs 2 GPUs. The newest job, b-new, loses b-new-1; put back at its minimum, it now
// ranks after b-old, still above its minimum, which loses b-old-1: one pod from each job.
TEST_F(VictimSolver, ElasticSurplusIsTakenOnePodPerJobInTurn) {
  objects_.nodes = {MakeNode("n1").Gpus(4)};
  objects_.queues = {MakeQueue("a").Gpu(2, -1, 1), MakeQueue("b").Gpu(0, -1, 1)};
  objects_.pod_groups = {MakeGroup("ns", "b-old").Queue("b").MinMember(1).Created(1),
                         MakeGroup("ns", "b-new").Queue("b").MinMember(1).Created(2),
                         MakeGroup("ns", "a-job").Queue("a").MinMember(1).Created(3)};
  for (const char* job : {"b-old", "b-new"}) {
    for (int k = 0; k < 2; ++k) {
      objects_.pods.push_back(MakePod("ns", std::string(job) + "-" + std::to_string(k))
                                  .Group(job)
                                  .Gpus(1)
                                  .RunningOn("n1")
                                  .Created(10 + k));
    }
  }
  objects_.pods.push_back(MakePod("ns", "a-0").Group("a-job").Gpus(2).Created(20));
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-new-1 n1", "evict ns/b-old-1 n1",
                                      "pipeline ns/a-0 n1"}));
}

// KAI judges each victim queue with its victims so far taken away (job_order_by_queue.go,
// getVictimsForQueue; queue_order.go, calculateDominantResourceShareWithJob): once a queue has
// lost a job, another may rank worse. Queues b and c (quota 1 each, under one department) run
// two 1-GPU jobs each on a 4-GPU node; a (quota 2) needs 2 GPUs. b is the newer queue, so it
// loses first (equal shares; the newer queue goes last in the fair-share order); with b's job
// taken away, c holds more and loses the next one.
TEST_F(VictimSolver, VictimsAlternateBetweenQueuesAsTheirSharesDrop) {
  objects_.nodes = {MakeNode("n1").Gpus(4)};
  objects_.queues = {MakeQueue("d").Gpu(-1, -1, 1), MakeQueue("a").Parent("d").Gpu(2, -1, 1),
                     MakeQueue("b").Parent("d").Gpu(1, -1, 1).Created(20),
                     MakeQueue("c").Parent("d").Gpu(1, -1, 1).Created(10)};
  int created = 0;
  for (const char* q : {"b", "c"}) {
    for (int k = 0; k < 2; ++k) {
      const std::string name = std::string(q) + "-" + std::to_string(k);
      objects_.pods.push_back(
          MakePod("ns", name).Queue(q).Gpus(1).RunningOn("n1").Created(++created));
    }
  }
  objects_.pod_groups = {MakeGroup("ns", "a-job").Queue("a").MinMember(1)};
  objects_.pods.push_back(MakePod("ns", "a-0").Group("a-job").Gpus(2).Created(100));
  EXPECT_EQ(Run(ReclaimAction()),
            (std::vector<std::string>{"evict ns/b-1 n1", "evict ns/c-1 n1", "pipeline ns/a-0 n1"}));
}

}  // namespace
}  // namespace quotient::actions
