#include "core/object_overlay.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::core {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

TEST(ObjectOverlayTest, ReplacesByKindAndKeyAndAppendsTheRest) {
  ClusterObjects base;
  base.queues.push_back(MakeQueue("team-a"));
  base.queues.push_back(MakeQueue("team-b").Parent("dept"));
  base.nodes.push_back(MakeNode("node-0").Gpus(8));
  base.pods.push_back(MakePod("ns", "p"));
  ClusterObjects changes;
  changes.queues.push_back(MakeQueue("team-b").Parent("other"));
  changes.queues.push_back(MakeQueue("team-c"));
  // Same name, another namespace: a different pod.
  changes.pods.push_back(MakePod("other", "p"));

  const ClusterObjects merged = OverlayObjects(base, changes);
  ASSERT_EQ(merged.queues.size(), 3u);
  EXPECT_EQ(merged.queues[0].meta.name, "team-a");
  EXPECT_EQ(merged.queues[1].meta.name, "team-b");
  EXPECT_EQ(merged.queues[1].parent, "other");
  EXPECT_EQ(merged.queues[2].meta.name, "team-c");
  ASSERT_EQ(merged.nodes.size(), 1u);
  ASSERT_EQ(merged.pods.size(), 2u);
  EXPECT_EQ(merged.pods[0].meta.Key(), "ns/p");
  EXPECT_EQ(merged.pods[1].meta.Key(), "other/p");
}

}  // namespace
}  // namespace quotient::core
