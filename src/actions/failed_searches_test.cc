// FailedSearches: which preemptors count as alike, and that a change of state forgets.
#include "actions/failed_searches.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "core/snapshot_builder.h"
#include "framework/statement.h"

namespace quotient::actions {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

class FailedSearchesTest : public ::testing::Test {
 protected:
  FailedSearchesTest() {
    core::ClusterObjects o;
    o.nodes = {MakeNode("n1").Gpus(8)};
    o.queues = {MakeQueue("a").Gpu(8, -1, 1), MakeQueue("b").Gpu(8, -1, 1)};
    o.priority_classes = {testing::PriorityClass("high", 200)};
    o.pod_groups = {
        MakeGroup("ns", "one").Queue("a"),
        MakeGroup("ns", "two").Queue("a"),
        MakeGroup("ns", "other-queue").Queue("b"),
        MakeGroup("ns", "bigger").Queue("a"),
        MakeGroup("ns", "higher").Queue("a").PriorityClass("high"),
        MakeGroup("ns", "running").Queue("a"),
        MakeGroup("ns", "kept").Queue("a").Preemptibility(core::Preemptibility::kNonPreemptible)};
    o.pods = {MakePod("ns", "one-0").Group("one").Gpus(1),
              MakePod("ns", "two-0").Group("two").Gpus(1),
              MakePod("ns", "other-queue-0").Group("other-queue").Gpus(1),
              MakePod("ns", "bigger-0").Group("bigger").Gpus(2),
              MakePod("ns", "higher-0").Group("higher").Gpus(1),
              MakePod("ns", "running-0").Group("running").Gpus(1).RunningOn("n1"),
              MakePod("ns", "running-1").Group("running").Gpus(1),
              MakePod("ns", "kept-0").Group("kept").Gpus(1)};
    snapshot_ = core::BuildSnapshot(o, core::SnapshotOptions{}).snapshot;
  }
  std::string Key(const FailedSearches& failed, const std::string& job, const std::string& task) {
    return failed.KeyOf(snapshot_.FindJob("ns/" + job), {snapshot_.FindPod("ns/" + task)});
  }

  core::Snapshot snapshot_;
  framework::SchedulerConfig config_;
};

TEST_F(FailedSearchesTest, AlikePreemptorsShareAKeyAndOthersDoNot) {
  framework::Session session(snapshot_, config_);
  FailedSearches failed(session);
  const std::string one = Key(failed, "one", "one-0");
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(Key(failed, "two", "two-0"), one);
  EXPECT_NE(Key(failed, "other-queue", "other-queue-0"), one);
  EXPECT_NE(Key(failed, "bigger", "bigger-0"), one);
  EXPECT_NE(Key(failed, "higher", "higher-0"), one);
  EXPECT_NE(Key(failed, "kept", "kept-0"), one);  // not preemptible: other quota rules
  // A job with a pod on a node is a possible victim of others: never shared.
  EXPECT_EQ(Key(failed, "running", "running-1"), "");
}

TEST_F(FailedSearchesTest, AFailureHoldsUntilTheStateChanges) {
  framework::Session session(snapshot_, config_);
  FailedSearches failed(session);
  const std::string key = Key(failed, "one", "one-0");
  EXPECT_FALSE(failed.KnownToFail(key));
  failed.RecordFailure(key);
  EXPECT_TRUE(failed.KnownToFail(Key(failed, "two", "two-0")));
  {
    // A search that changes nothing (its statement discarded) keeps the failure.
    framework::Statement statement(session, "test");
    statement.Evict(snapshot_.FindPod("ns/running-0"), "trial");
  }
  EXPECT_TRUE(failed.KnownToFail(key));
  {
    framework::Statement statement(session, "test");
    statement.Evict(snapshot_.FindPod("ns/running-0"), "committed");
    statement.Commit();
  }
  EXPECT_FALSE(failed.KnownToFail(key));
}

TEST_F(FailedSearchesTest, OffUnderTheReferenceSearch) {
  framework::SchedulerConfig config;
  config.reference_search = true;
  framework::Session session(snapshot_, config);
  FailedSearches failed(session);
  EXPECT_EQ(Key(failed, "one", "one-0"), "");
  failed.RecordFailure("");
  EXPECT_FALSE(failed.KnownToFail(""));
}

}  // namespace
}  // namespace quotient::actions
