// ClusterModel must give, after any sequence of changes, the snapshot BuildSnapshot gives for the
// objects the changes leave behind.
#include "core/cluster_model.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::core {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

// The parts of a snapshot the scheduler reads, flattened to text so a mismatch shows where.
std::vector<std::string> Describe(const SnapshotBuild& b) {
  std::vector<std::string> out;
  const Snapshot& s = b.snapshot;
  for (const Node& n : s.nodes) {
    std::string line = "node " + n.name + " pool=" + n.node_pool +
                       " usable=" + std::to_string(n.usable) + " pods=";
    for (Index p : n.pods) line += s.pods[static_cast<size_t>(p)].key + ",";
    line += " used_cpu=" + std::to_string(n.used.cpu_milli.value()) + " gpus=";
    for (const GpuDevice& d : n.gpus) {
      line += std::to_string(static_cast<int>(d.state)) + ":" + d.group + ":" +
              std::to_string(d.used_portion_milli.value()) + ",";
    }
    out.push_back(line);
  }
  for (const Pod& p : s.pods) {
    out.push_back("pod " + p.key + " status=" + std::string(PodStatusName(p.status)) +
                  " node=" + std::to_string(p.node) + " job=" + std::to_string(p.job) +
                  " cpu=" + std::to_string(p.request.cpu_milli.value()) +
                  " problems=" + std::to_string(p.problems.size()));
  }
  for (const Job& j : s.jobs) {
    std::string line = "job " + j.key + " queue=" + std::to_string(j.queue) +
                       " priority=" + std::to_string(j.priority) + " pods=";
    for (Index p : j.pods) line += std::to_string(p) + ",";
    line += " problems=" + std::to_string(j.problems.size());
    out.push_back(line);
  }
  for (const Queue& q : s.queues) {
    out.push_back("queue " + q.name + " parent=" + std::to_string(q.parent));
  }
  for (const Diagnostic& d : b.diagnostics) out.push_back("warning " + d.object + " " + d.message);
  return out;
}

std::vector<std::string> Rebuilt(const ClusterModel& model, Time now) {
  SnapshotOptions options;
  options.now = now;
  return Describe(BuildSnapshot(model.Objects(), options));
}

class ClusterModelTest : public ::testing::Test {
 protected:
  ClusterModelTest() : model_(SnapshotOptions{}) {
    model_.Upsert(core::QueueObject(MakeQueue("dept").Gpu(8, -1, 1)));
    model_.Upsert(core::QueueObject(MakeQueue("team").Parent("dept").Gpu(4, -1, 1)));
    model_.Upsert(core::NodeObject(MakeNode("n2").Gpus(8).Cpu("64").Memory("512Gi")));
    model_.Upsert(core::NodeObject(MakeNode("n1").Gpus(8).Cpu("64").Memory("512Gi")));
    model_.Upsert(core::PodGroupObject(MakeGroup("ns", "gang").Queue("team").MinMember(2)));
    model_.Upsert(core::PodObject(MakePod("ns", "b").Queue("team").Gpus(1).RunningOn("n1")));
    model_.Upsert(core::PodObject(MakePod("ns", "a").Queue("team").Gpus(2).RunningOn("n2")));
    model_.Upsert(core::PodObject(MakePod("ns", "g-0").Group("gang").Gpus(1)));
    model_.Upsert(core::PodObject(MakePod("ns", "g-1").Group("gang").Gpus(1)));
  }
  ClusterModel model_;
  const Time now_ = Time(std::chrono::seconds(1'700'000'000));
};

TEST_F(ClusterModelTest, SnapshotEqualsAFullBuildOfTheSameObjects) {
  const std::vector<std::string> got = Describe(model_.Snapshot(now_));
  EXPECT_EQ(got, Rebuilt(model_, now_));
  // Kept sorted by key whatever the arrival order: n1 before n2, ns/a before ns/b.
  EXPECT_EQ(model_.Snapshot(now_).snapshot.nodes.front().name, "n1");
  EXPECT_EQ(model_.Snapshot(now_).snapshot.pods.front().key, "ns/a");
  EXPECT_EQ(model_.Snapshot(now_).snapshot.now, now_);
}

TEST_F(ClusterModelTest, ChangedPodIsReadAgain) {
  // The gang's first pod gets bound to n1: the node now holds it and its GPU.
  model_.Upsert(core::PodObject(MakePod("ns", "g-0").Group("gang").Gpus(1).RunningOn("n1")));
  const SnapshotBuild b = model_.Snapshot(now_);
  EXPECT_EQ(Describe(b), Rebuilt(model_, now_));
  const Snapshot& s = b.snapshot;
  const Node& n1 = s.nodes[static_cast<size_t>(s.FindNode("n1"))];
  EXPECT_EQ(n1.pods.size(), 2u);
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/g-0"))].status, PodStatus::kRunning);
}

TEST_F(ClusterModelTest, RemovalsAndUnknownKeys) {
  model_.RemovePod("ns/b");
  model_.RemoveNode("n2");  // ns/a stays, bound to a node the snapshot no longer has
  model_.RemovePodGroup("ns/gang");
  model_.RemovePod("ns/never-seen");
  EXPECT_EQ(Describe(model_.Snapshot(now_)), Rebuilt(model_, now_));
  EXPECT_EQ(model_.pod_count(), 3u);
  EXPECT_EQ(model_.node_count(), 1u);
  // The gang's pods name a PodGroup that is gone: they are held together and explained.
  const Snapshot s = model_.Snapshot(now_).snapshot;
  const Job& gang = s.jobs[static_cast<size_t>(s.FindJob("ns/gang"))];
  EXPECT_FALSE(gang.problems.empty());
}

TEST_F(ClusterModelTest, PodRemovedAndAddedAgainIsFoundAfterAMove) {
  model_.RemovePod("ns/b");
  EXPECT_EQ(model_.FindPod("ns/b"), nullptr);
  model_.Upsert(core::PodObject(MakePod("ns", "b").Queue("team").Gpus(3).RunningOn("n2")));
  model_.Upsert(core::PodObject(MakePod("ns", "c").Queue("team").Gpus(1)));
  // Moved, the model still finds and replaces its pods (the lookup index travels with it).
  ClusterModel moved = std::move(model_);
  moved.Upsert(core::PodObject(MakePod("ns", "c").Queue("team").Gpus(2)));
  ASSERT_NE(moved.FindPod("ns/b"), nullptr);
  EXPECT_EQ(moved.FindPod("ns/b")->node_name, "n2");
  EXPECT_EQ(moved.pod_count(), 5u);
  EXPECT_EQ(Describe(moved.Snapshot(now_)), Rebuilt(moved, now_));
  const Snapshot s = moved.Snapshot(now_).snapshot;
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/c"))].request.gpu_milli.value(), 2000);
}

TEST_F(ClusterModelTest, ReadingWarningsComeAndGoWithTheObject) {
  model_.Upsert(
      core::PodObject(MakePod("ns", "bad").Queue("team").Annotation("gpu-fraction", "1.7")));
  SnapshotBuild b = model_.Snapshot(now_);
  EXPECT_EQ(Describe(b), Rebuilt(model_, now_));
  const auto mentions_bad = [](const SnapshotBuild& build) {
    int n = 0;
    for (const Diagnostic& d : build.diagnostics) n += d.object == "Pod ns/bad" ? 1 : 0;
    return n;
  };
  EXPECT_EQ(mentions_bad(b), 1);
  model_.Upsert(
      core::PodObject(MakePod("ns", "bad").Queue("team").Annotation("gpu-fraction", "0.5")));
  b = model_.Snapshot(now_);
  EXPECT_EQ(mentions_bad(b), 0);
  EXPECT_EQ(Describe(b), Rebuilt(model_, now_));
}

TEST_F(ClusterModelTest, QueuePriorityClassAndBudgetChangesShowInTheNextSnapshot) {
  core::PriorityClassObject high;
  high.meta.name = "high";
  high.value = 200;
  model_.Upsert(high);
  model_.Upsert(core::PodGroupObject(
      MakeGroup("ns", "gang").Queue("team").MinMember(2).PriorityClass("high")));
  model_.RemoveQueue("dept");  // team's parent is gone: the subtree is unusable
  const SnapshotBuild b = model_.Snapshot(now_);
  EXPECT_EQ(Describe(b), Rebuilt(model_, now_));
  const Snapshot& s = b.snapshot;
  EXPECT_EQ(s.jobs[static_cast<size_t>(s.FindJob("ns/gang"))].priority, 200);
  EXPECT_FALSE(s.queues[static_cast<size_t>(s.FindQueue("team"))].problems.empty());
}

TEST_F(ClusterModelTest, CycleViewFiltersAndPatchesWithoutChangingTheModel) {
  ClusterModel::CycleView view;
  // Leave out ns/b; see ns/g-0 as bound to n2 for this cycle.
  // ns/g-1 sits the cycle out (gated); ns/a is on a node already (its patches do nothing); ns/b
  // is left out, so its patch has nothing to patch; so has an unknown key.
  view.include = [](const PodObject& pod) { return pod.meta.name != "b"; };
  view.assumed_nodes = {{"ns/g-0", "n2"}, {"ns/a", "n1"}, {"ns/b", "n1"}, {"ns/unknown", "n1"}};
  view.gated = {"ns/g-1", "ns/a", "ns/g-0"};  // g-0's bind wins over its gate
  const SnapshotBuild b = model_.Snapshot(now_, view);

  // The same as a full build of the objects with those changes made.
  ClusterObjects objects = model_.Objects();
  std::erase_if(objects.pods, [](const PodObject& p) { return p.meta.name == "b"; });
  for (PodObject& p : objects.pods) {
    if (p.meta.name == "g-0") p.node_name = "n2";
    if (p.meta.name == "g-1") p.scheduling_gated = true;
  }
  SnapshotOptions options;
  options.now = now_;
  EXPECT_EQ(Describe(b), Describe(BuildSnapshot(objects, options)));
  const Snapshot& s = b.snapshot;
  EXPECT_EQ(s.FindPod("ns/b"), kNone);
  EXPECT_EQ(s.FindPod("ns/unknown"), kNone);  // an override of nothing adds nothing
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/g-0"))].status, PodStatus::kBound);
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/g-1"))].status, PodStatus::kGated);
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/a"))].node_name, "n2");
  // The model itself is unchanged.
  EXPECT_EQ(Describe(model_.Snapshot(now_)), Rebuilt(model_, now_));
  EXPECT_TRUE(model_.FindPod("ns/g-0")->node_name.empty());
  EXPECT_EQ(model_.FindPod("ns/none"), nullptr);
}

}  // namespace
}  // namespace quotient::core
