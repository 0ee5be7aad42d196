// ClusterModel must give, after any sequence of changes, the snapshot BuildSnapshot gives for the
// objects the changes leave behind.
#include "core/cluster_model.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "builders/snapshot_text.h"

namespace quotient::core {
namespace {

using testing::DescribeSnapshot;
using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

std::vector<std::string> Rebuilt(const ClusterModel& model, Time now) {
  SnapshotOptions options;
  options.now = now;
  return DescribeSnapshot(BuildSnapshot(model.Objects(), options));
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
  const std::vector<std::string> got = DescribeSnapshot(*model_.Snapshot(now_));
  EXPECT_EQ(got, Rebuilt(model_, now_));
  // Kept sorted by key whatever the arrival order: n1 before n2, ns/a before ns/b.
  EXPECT_EQ(model_.Snapshot(now_)->snapshot.nodes.front().name, "n1");
  EXPECT_EQ(model_.Snapshot(now_)->snapshot.pods.front().key, "ns/a");
  EXPECT_EQ(model_.Snapshot(now_)->snapshot.now, now_);
}

TEST_F(ClusterModelTest, ChangedPodIsReadAgain) {
  // The gang's first pod gets bound to n1: the node now holds it and its GPU.
  model_.Upsert(core::PodObject(MakePod("ns", "g-0").Group("gang").Gpus(1).RunningOn("n1")));
  const SnapshotBuild b = *model_.Snapshot(now_);
  EXPECT_EQ(DescribeSnapshot(b), Rebuilt(model_, now_));
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
  EXPECT_EQ(DescribeSnapshot(*model_.Snapshot(now_)), Rebuilt(model_, now_));
  EXPECT_EQ(model_.pod_count(), 3u);
  EXPECT_EQ(model_.node_count(), 1u);
  // The gang's pods name a PodGroup that is gone: they are held together and explained.
  const Snapshot s = model_.Snapshot(now_)->snapshot;
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
  EXPECT_EQ(DescribeSnapshot(*moved.Snapshot(now_)), Rebuilt(moved, now_));
  const Snapshot s = moved.Snapshot(now_)->snapshot;
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/c"))].request.gpu_milli.value(), 2000);
}

TEST_F(ClusterModelTest, ReadingWarningsComeAndGoWithTheObject) {
  model_.Upsert(
      core::PodObject(MakePod("ns", "bad").Queue("team").Annotation("gpu-fraction", "1.7")));
  SnapshotBuild b = *model_.Snapshot(now_);
  EXPECT_EQ(DescribeSnapshot(b), Rebuilt(model_, now_));
  const auto mentions_bad = [](const SnapshotBuild& build) {
    int n = 0;
    for (const Diagnostic& d : build.diagnostics) n += d.object == "Pod ns/bad" ? 1 : 0;
    return n;
  };
  EXPECT_EQ(mentions_bad(b), 1);
  model_.Upsert(
      core::PodObject(MakePod("ns", "bad").Queue("team").Annotation("gpu-fraction", "0.5")));
  b = *model_.Snapshot(now_);
  EXPECT_EQ(mentions_bad(b), 0);
  EXPECT_EQ(DescribeSnapshot(b), Rebuilt(model_, now_));
}

TEST_F(ClusterModelTest, QueuePriorityClassAndBudgetChangesShowInTheNextSnapshot) {
  core::PriorityClassObject high;
  high.meta.name = "high";
  high.value = 200;
  model_.Upsert(high);
  model_.Upsert(core::PodGroupObject(
      MakeGroup("ns", "gang").Queue("team").MinMember(2).PriorityClass("high")));
  model_.RemoveQueue("dept");  // team's parent is gone: the subtree is unusable
  const SnapshotBuild b = *model_.Snapshot(now_);
  EXPECT_EQ(DescribeSnapshot(b), Rebuilt(model_, now_));
  const Snapshot& s = b.snapshot;
  EXPECT_EQ(s.jobs[static_cast<size_t>(s.FindJob("ns/gang"))].priority, 200);
  EXPECT_FALSE(s.queues[static_cast<size_t>(s.FindQueue("team"))].problems.empty());
}

TEST_F(ClusterModelTest, CycleViewPatchesWithoutChangingTheModel) {
  model_.Snapshot(now_);
  ClusterModel::CycleView view;
  // See ns/g-0 as bound to n2 for this cycle; ns/g-1 sits the cycle out (gated). ns/a and ns/b
  // are on nodes already (their patches do nothing); so is an unknown key.
  view.assumed_nodes = {{"ns/g-0", "n2"}, {"ns/a", "n1"}, {"ns/b", "n2"}, {"ns/unknown", "n1"}};
  view.gated = {"ns/g-1", "ns/a", "ns/g-0"};  // g-0's bind wins over its gate
  const SnapshotBuild b = *model_.Snapshot(now_, view);
  EXPECT_TRUE(model_.last_was_patched());

  // The same as a full build of the objects with those changes made.
  ClusterObjects objects = model_.Objects();
  for (PodObject& p : objects.pods) {
    if (p.meta.name == "g-0") p.node_name = "n2";
    if (p.meta.name == "g-1") p.scheduling_gated = true;
  }
  SnapshotOptions options;
  options.now = now_;
  EXPECT_EQ(DescribeSnapshot(b), DescribeSnapshot(BuildSnapshot(objects, options)));
  const Snapshot& s = b.snapshot;
  EXPECT_EQ(s.FindPod("ns/unknown"), kNone);  // an override of nothing adds nothing
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/g-0"))].status, PodStatus::kBound);
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/g-1"))].status, PodStatus::kGated);
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/a"))].node_name, "n2");
  EXPECT_EQ(s.pods[static_cast<size_t>(s.FindPod("ns/b"))].node_name, "n1");
  // The model itself is unchanged, and the next snapshot without the view drops its patches.
  EXPECT_EQ(DescribeSnapshot(*model_.Snapshot(now_)), Rebuilt(model_, now_));
  EXPECT_TRUE(model_.last_was_patched());
  EXPECT_TRUE(model_.FindPod("ns/g-0")->node_name.empty());
  EXPECT_EQ(model_.FindPod("ns/none"), nullptr);
}

TEST_F(ClusterModelTest, AnAssumedFractionalPodHoldsItsGroupsDeviceBeforeItsLabelArrives) {
  // A fractional pod that joins the shared device of group "g" held by a running pod.
  model_.Upsert(core::PodObject(MakePod("ns", "f-run")
                                    .Queue("team")
                                    .Annotation("gpu-fraction", "0.5")
                                    .Label("runai-gpu-group", "g")
                                    .RunningOn("n1")));
  model_.Upsert(
      core::PodObject(MakePod("ns", "f-new").Queue("team").Annotation("gpu-fraction", "0.25")));
  model_.Snapshot(now_);
  ClusterModel::CycleView view;
  view.assumed_nodes = {{"ns/f-new", "n1"}};
  view.assumed_gpu_groups = {{"ns/f-new", {"g"}}};
  const SnapshotBuild b = *model_.Snapshot(now_, view);
  // The same as a full build where the pod is bound and labelled.
  ClusterObjects objects = model_.Objects();
  for (PodObject& p : objects.pods) {
    if (p.meta.name == "f-new") {
      p.node_name = "n1";
      p.meta.labels["runai-gpu-group"] = "g";
    }
  }
  SnapshotOptions options;
  options.now = now_;
  EXPECT_EQ(DescribeSnapshot(b), DescribeSnapshot(BuildSnapshot(objects, options)));
  const Node& n1 = b.snapshot.nodes[static_cast<size_t>(b.snapshot.FindNode("n1"))];
  int shared = 0;
  for (const GpuDevice& d : n1.gpus) {
    if (d.state != GpuDevice::State::kShared) continue;
    ++shared;
    EXPECT_EQ(d.group, "g");
    EXPECT_EQ(d.used_portion_milli, Quantity(750));  // one device, both pods
  }
  EXPECT_EQ(shared, 1);
}

TEST_F(ClusterModelTest, ASnapshotStillHeldIsNotPatchedButBuiltAgain) {
  const std::shared_ptr<const SnapshotBuild> held = model_.Snapshot(now_);
  const std::vector<std::string> before = DescribeSnapshot(*held);
  model_.Upsert(core::PodObject(MakePod("ns", "c").Queue("team").Gpus(1)));
  const std::shared_ptr<const SnapshotBuild> next = model_.Snapshot(now_);
  EXPECT_FALSE(model_.last_was_patched());
  EXPECT_NE(held, next);
  EXPECT_EQ(DescribeSnapshot(*held), before);  // the holder's snapshot is as it was
  EXPECT_EQ(DescribeSnapshot(*next), Rebuilt(model_, now_));
}

TEST_F(ClusterModelTest, PatchesFollowPodsComingGoingAndMovingBetweenJobsAndNodes) {
  model_.Snapshot(now_);
  model_.RemovePod("ns/a");                                                        // gone from n2
  model_.Upsert(core::PodObject(MakePod("ns", "0-first").Queue("team").Gpus(1)));  // new, first
  model_.Upsert(core::PodObject(MakePod("ns", "g-2").Group("gang").Gpus(1).RunningOn("n2")));
  model_.Upsert(core::PodObject(MakePod("ns", "g-0").Queue("team").Gpus(1)));  // leaves the gang
  const std::shared_ptr<const SnapshotBuild> b = model_.Snapshot(now_);
  EXPECT_TRUE(model_.last_was_patched());
  EXPECT_EQ(DescribeSnapshot(*b), Rebuilt(model_, now_));
  const Snapshot& s = b->snapshot;
  EXPECT_EQ(s.pods.front().key, "ns/0-first");
  const Job& gang = s.jobs[static_cast<size_t>(s.FindJob("ns/gang"))];
  ASSERT_EQ(gang.pods.size(), 2u);  // g-1 and g-2
  EXPECT_EQ(s.pods[static_cast<size_t>(gang.pods[1])].key, "ns/g-2");
  EXPECT_NE(s.FindJob("ns/pg-g-0"), kNone);
  EXPECT_EQ(s.FindJob("ns/pg-a"), kNone);
  const Node& n2 = s.nodes[static_cast<size_t>(s.FindNode("n2"))];
  ASSERT_EQ(n2.pods.size(), 1u);
  EXPECT_EQ(s.pods[static_cast<size_t>(n2.pods.front())].key, "ns/g-2");
}

TEST_F(ClusterModelTest, AShardKeepsThePodsOfItsNodesAndPodGroups) {
  ClusterModel shard(SnapshotOptions{}, PodShard{"kai.scheduler/node-pool", ""});
  shard.Upsert(core::QueueObject(MakeQueue("team").Gpu(4, -1, 1)));
  shard.Upsert(core::NodeObject(MakeNode("n1").Gpus(8)));
  shard.Upsert(core::PodGroupObject(MakeGroup("ns", "mine").Queue("team")));
  // On a node of the shard, and on one of another shard (the model was not given it).
  shard.Upsert(core::PodObject(MakePod("ns", "here").Queue("team").Gpus(1).RunningOn("n1")));
  shard.Upsert(core::PodObject(MakePod("ns", "there").Queue("team").Gpus(1).RunningOn("n9")));
  // Pending: by PodGroup (this shard's, another's), else by label.
  shard.Upsert(core::PodObject(MakePod("ns", "grouped").Group("mine").Gpus(1)));
  shard.Upsert(core::PodObject(MakePod("ns", "elsewhere").Group("theirs").Gpus(1)));
  shard.Upsert(core::PodObject(MakePod("ns", "plain").Queue("team").Gpus(1)));
  shard.Upsert(core::PodObject(
      MakePod("ns", "labelled").Queue("team").Label("kai.scheduler/node-pool", "b").Gpus(1)));
  std::vector<std::string> keys;
  for (const Pod& p : shard.Snapshot(now_)->snapshot.pods) keys.push_back(p.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"ns/grouped", "ns/here", "ns/plain"}));
  // The other shard's PodGroup arrives here after all: its pod joins, patched in.
  shard.Upsert(core::PodGroupObject(MakeGroup("ns", "theirs").Queue("team")));
  const std::shared_ptr<const SnapshotBuild> b = shard.Snapshot(now_);
  EXPECT_TRUE(shard.last_was_patched());
  EXPECT_NE(b->snapshot.FindPod("ns/elsewhere"), kNone);
  EXPECT_EQ(DescribeSnapshot(*b), DescribeSnapshot(shard.FullSnapshot(now_)));
}

}  // namespace
}  // namespace quotient::core
