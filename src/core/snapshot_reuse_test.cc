// SnapshotReuse: the same snapshot again only while nothing it was made from changed, and never
// one that someone still holds.
#include "core/snapshot_reuse.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::core {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

class SnapshotReuseTest : public ::testing::Test {
 protected:
  SnapshotReuseTest() : model_(SnapshotOptions{}) {
    model_.Upsert(QueueObject(MakeQueue("team").Gpu(8, -1, 1)));
    model_.Upsert(NodeObject(MakeNode("n1").Gpus(8)));
    model_.Upsert(PodObject(MakePod("ns", "a").Queue("team").Gpus(1)));
  }
  ClusterModel model_;
  SnapshotReuse reuse_;
  const Time t1_ = Time(std::chrono::seconds(1'700'000'000));
  const Time t2_ = t1_ + std::chrono::seconds(1);
};

TEST_F(SnapshotReuseTest, NothingChangedGivesTheSameSnapshotAtTheNewTime) {
  const SnapshotBuild* first = reuse_.Take(model_, t1_, {}).get();
  const std::shared_ptr<const SnapshotBuild> second = reuse_.Take(model_, t2_, {});
  EXPECT_EQ(second.get(), first);
  EXPECT_EQ(second->snapshot.now, t2_);
  EXPECT_EQ(reuse_.made(), 1u);
  EXPECT_EQ(reuse_.reused(), 1u);
}

TEST_F(SnapshotReuseTest, AChangeOrAnotherViewMakesANewOne) {
  reuse_.Take(model_, t1_, {});
  model_.Upsert(PodObject(MakePod("ns", "b").Queue("team").Gpus(2)));
  const std::shared_ptr<const SnapshotBuild> changed = reuse_.Take(model_, t1_, {});
  EXPECT_NE(changed->snapshot.FindPod("ns/b"), kNone);
  EXPECT_EQ(reuse_.made(), 2u);
  ClusterModel::CycleView view;
  view.assumed_nodes = {{"ns/a", "n1"}};
  {
    const std::shared_ptr<const SnapshotBuild> b = reuse_.Take(model_, t1_, view);
    EXPECT_EQ(b->snapshot.pods[static_cast<size_t>(b->snapshot.FindPod("ns/a"))].node_name, "n1");
  }
  EXPECT_EQ(reuse_.made(), 3u);
  view.gated = {"ns/b"};
  const std::shared_ptr<const SnapshotBuild> gated = reuse_.Take(model_, t1_, view);
  EXPECT_EQ(gated->snapshot.pods[static_cast<size_t>(gated->snapshot.FindPod("ns/b"))].status,
            PodStatus::kGated);
  EXPECT_EQ(reuse_.made(), 4u);
  EXPECT_EQ(reuse_.reused(), 0u);
}

TEST_F(SnapshotReuseTest, ASnapshotStillHeldIsNeverChanged) {
  const std::shared_ptr<const SnapshotBuild> held = reuse_.Take(model_, t1_, {});
  const std::shared_ptr<const SnapshotBuild> next = reuse_.Take(model_, t2_, {});
  EXPECT_NE(next.get(), held.get());
  EXPECT_EQ(held->snapshot.now, t1_);
  EXPECT_EQ(next->snapshot.now, t2_);
  EXPECT_EQ(reuse_.made(), 2u);
}

}  // namespace
}  // namespace quotient::core
