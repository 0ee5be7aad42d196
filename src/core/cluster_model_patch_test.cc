// ClusterModel's patched snapshots against full builds: random changes of every kind, each batch
// followed by a snapshot with a random view; the model's snapshot must equal a full build of the
// same objects. The sequences are fixed by their seeds, so a failure repeats.
#include <gtest/gtest.h>

#include <random>

#include "builders/objects.h"
#include "builders/snapshot_text.h"
#include "core/cluster_model.h"

namespace quotient::core {
namespace {

using testing::DescribeSnapshot;
using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

// Changes of every kind the patches handle, and some they leave to a full build.
class RandomChanges {
 public:
  explicit RandomChanges(uint32_t seed) : random_(seed) {}

  void ApplyOne(ClusterModel& m) {
    const int what = Pick(100);
    if (what < 55) {
      m.Upsert(RandomPod());
    } else if (what < 70) {
      m.RemovePod(Namespace() + "/p" + std::to_string(Pick(kPods)));
    } else if (what < 80) {
      MakeGroup g(Namespace(), "g" + std::to_string(Pick(kGroups)));
      g.Queue(Pick(6) == 0 ? "dept" : "team").MinMember(1 + Pick(3));
      if (Pick(4) == 0) g.SubGroup("workers", 1);
      if (Pick(4) == 0) g.PriorityClass(Pick(2) == 0 ? "high" : "missing");
      m.Upsert(core::PodGroupObject(g));
    } else if (what < 86) {
      m.RemovePodGroup(Namespace() + "/g" + std::to_string(Pick(kGroups)));
    } else if (what < 94) {
      MakeNode n("n" + std::to_string(Pick(kNodes)));
      n.Gpus(8).Cpu("64").Memory("512Gi");
      if (Pick(3) == 0) n.Label("nvidia.com/gpu.memory", Pick(2) == 0 ? "81920" : "40960");
      if (Pick(4) == 0) n.Cordoned();
      m.Upsert(core::NodeObject(n));
    } else if (what < 96) {
      m.RemoveNode("n" + std::to_string(Pick(kNodes)));
    } else if (what < 98) {
      core::PodDisruptionBudgetObject budget;
      budget.meta.namespace_name = "ns";
      budget.meta.name = "web";
      budget.selector = core::LabelSelector{{{"app", "web"}}, {}};
      budget.disruptions_allowed = Pick(2);
      m.Upsert(budget);
    } else {
      m.Upsert(core::QueueObject(MakeQueue("team").Parent("dept").Gpu(4 + Pick(4), -1, 1)));
    }
  }

  ClusterModel::CycleView RandomView() {
    ClusterModel::CycleView view;
    for (int i = Pick(3); i > 0; --i) {
      view.assumed_nodes[Namespace() + "/p" + std::to_string(Pick(kPods))] =
          "n" + std::to_string(Pick(kNodes));
    }
    for (int i = Pick(3); i > 0; --i)
      view.gated.insert(Namespace() + "/p" + std::to_string(Pick(kPods)));
    return view;
  }

 private:
  static constexpr int kPods = 24;
  static constexpr int kGroups = 4;
  static constexpr int kNodes = 4;

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  std::string Namespace() { return Pick(4) == 0 ? "other" : "ns"; }

  core::PodObject RandomPod() {
    MakePod p(Namespace(), "p" + std::to_string(Pick(kPods)));
    const int group = Pick(kGroups + 3);
    if (group < kGroups) {
      p.Group("g" + std::to_string(group));
      if (Pick(5) == 0) p.Label("kai.scheduler/subgroup-name", "workers");
    } else {
      p.Queue(Pick(8) == 0 ? "dept" : "team");
    }
    if (Pick(10) == 0) p.Scheduler("someone-else");
    if (Pick(3) == 0) {
      p.Annotation("gpu-fraction", "0.5");
      p.Label("runai-gpu-group", "shared-" + std::to_string(Pick(2)));
    } else {
      p.Gpus(Pick(3));
    }
    p.Cpu(std::to_string(1 + Pick(4)));
    if (Pick(3) == 0) p.Label("app", "web");
    if (Pick(8) == 0) p.PriorityClass(Pick(2) == 0 ? "high" : "missing");
    if (Pick(10) == 0) p.Label("kai.scheduler/node-pool", "b");
    if (Pick(12) == 0) p.Annotation("gpu-fraction", "1.7");  // a reading warning
    const int state = Pick(6);
    if (state < 2) p.RunningOn("n" + std::to_string(Pick(kNodes)));
    if (state == 2) p.BoundTo("n" + std::to_string(Pick(kNodes)));
    if (state == 3 && Pick(2) == 0) p.Deleting();
    if (state == 4 && Pick(2) == 0) p.Phase(core::PodPhase::kSucceeded);
    return p;
  }

  std::mt19937 random_;
};

void CheckPatchesAgainstFullBuilds(ClusterModel& model, uint32_t seed) {
  RandomChanges changes(seed);
  model.Upsert(core::QueueObject(MakeQueue("dept").Gpu(16, -1, 1)));
  model.Upsert(core::QueueObject(MakeQueue("team").Parent("dept").Gpu(8, -1, 1)));
  model.Upsert(testing::PriorityClass("high", 200));
  int patched = 0;
  constexpr int kSteps = 400;
  for (int step = 0; step < kSteps; ++step) {
    for (int i = 1 + static_cast<int>(step % 4); i > 0; --i) changes.ApplyOne(model);
    const ClusterModel::CycleView view = changes.RandomView();
    const Time now(std::chrono::seconds(1'700'000'000 + step));
    const std::shared_ptr<const SnapshotBuild> got = model.Snapshot(now, view);
    patched += model.last_was_patched() ? 1 : 0;
    ASSERT_EQ(DescribeSnapshot(*got), DescribeSnapshot(model.FullSnapshot(now, view)))
        << "seed " << seed << " step " << step << (model.last_was_patched() ? " (patched)" : "");
    ASSERT_EQ(got->snapshot.now, now);
  }
  // Most steps must have been patches, or this test tests little.
  EXPECT_GT(patched, kSteps / 2) << "seed " << seed;
}

TEST(ClusterModelPatchTest, PatchedSnapshotsEqualFullBuildsUnderRandomChanges) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    ClusterModel model(SnapshotOptions{});
    CheckPatchesAgainstFullBuilds(model, seed);
  }
}

TEST(ClusterModelPatchTest, AShardsPatchedSnapshotsEqualFullBuildsUnderRandomChanges) {
  for (uint32_t seed = 11; seed <= 14; ++seed) {
    ClusterModel model(SnapshotOptions{}, PodShard{"kai.scheduler/node-pool", ""});
    CheckPatchesAgainstFullBuilds(model, seed);
  }
}

}  // namespace
}  // namespace quotient::core
