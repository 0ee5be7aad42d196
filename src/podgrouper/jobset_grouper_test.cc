// JobSet grouping on object files (testdata/jobset/): expected values come from KAI's rules
// (kai-reference §9), worked out in each file's comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "podgrouper/groupers.h"
#include "podgrouper/test_view.h"

namespace quotient::podgrouper {
namespace {

using testing::GroupNamedPod;
using testing::LoadObjects;
using testing::WarningWith;

TEST(JobSetGrouper, InOrderGivesEachReplicatedJobItsOwnPodGroup) {
  const std::vector<Object> objects = LoadObjects("jobset/inorder.yaml");
  struct Case {
    const char* pod;
    const char* pod_group;
    int32_t min_member;
  };
  for (const Case& c : {Case{"pretrain-driver-0-0-6bq9d", "pg-pretrain-js-pretrain-driver", 1},
                        Case{"pretrain-workers-1-2-x8k4m", "pg-pretrain-js-pretrain-workers", 8},
                        // parallelism 2 capped by completions 1, times 3 replicas
                        Case{"pretrain-ps-0-0-r5t7w", "pg-pretrain-js-pretrain-ps", 3}}) {
    SCOPED_TRACE(c.pod);
    const Grouping grouping = GroupNamedPod(objects, c.pod);
    EXPECT_EQ(grouping.pod_group.name, c.pod_group);
    EXPECT_EQ(grouping.pod_group.min_member, c.min_member);
    EXPECT_EQ(grouping.pod_group.namespace_name, "ml");
    EXPECT_EQ(grouping.pod_group.owner.api_version, "jobset.x-k8s.io/v1alpha2");
    EXPECT_EQ(grouping.pod_group.owner.kind, "JobSet");
    EXPECT_EQ(grouping.pod_group.owner.name, "pretrain");
    EXPECT_EQ(grouping.pod_group.owner.uid, "js-pretrain");
    EXPECT_EQ(grouping.pod_group.queue, "ml");
    EXPECT_EQ(grouping.pod_group.priority_class_name, "train");
    EXPECT_TRUE(grouping.pod_group.sub_groups.empty());
    EXPECT_EQ(grouping.pod_sub_group, "");
    EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
  }
}

TEST(JobSetGrouper, NoStartupPolicyIsInOrderAsInKai) {
  const std::vector<Object> objects = LoadObjects("jobset/orders.yaml");
  const Grouping grouping = GroupNamedPod(objects, "eval-shard-1-0-p2m8v");
  EXPECT_EQ(grouping.pod_group.name, "pg-eval-js-eval-shard");
  EXPECT_EQ(grouping.pod_group.min_member, 4);  // no completions: parallelism 2, times 2
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(JobSetGrouper, AnyOrderIsOnePodGroupOfAllReplicatedJobs) {
  const std::vector<Object> objects = LoadObjects("jobset/orders.yaml");
  const Grouping grouping = GroupNamedPod(objects, "sweep-trials-2-1-h6j3k");
  EXPECT_EQ(grouping.pod_group.name, "pg-sweep-js-sweep");
  EXPECT_EQ(grouping.pod_group.owner.kind, "JobSet");
  EXPECT_EQ(grouping.pod_group.min_member, 7);  // leader 1 (defaults) + trials 3 x 2
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(JobSetGrouper, TrainJobPodsAreGroupedByTheirJobSet) {
  const std::vector<Object> objects = LoadObjects("jobset/trainjob.yaml");
  const Grouping grouping = GroupNamedPod(objects, "llama-ft-node-0-0-f4g5h");
  EXPECT_EQ(grouping.pod_group.name, "pg-llama-ft-js-llama-ft-node");
  EXPECT_EQ(grouping.pod_group.owner.kind, "JobSet");
  EXPECT_EQ(grouping.pod_group.owner.uid, "js-llama-ft");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  EXPECT_EQ(grouping.pod_group.queue, "research");
}

TEST(JobSetGrouper, MalformedReplicatedJobsAreWarnedAndCountedSafely) {
  const std::vector<Object> objects = LoadObjects("jobset/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "messy-ok-0-0-a1b2c");
  EXPECT_EQ(grouping.pod_group.name, "pg-messy-js-messy");
  EXPECT_EQ(grouping.pod_group.min_member, 3);
  WarningWith(grouping, {"JobSet ml/messy", "spec.replicatedJobs[0]", "not a map"});
  WarningWith(grouping, {"JobSet ml/messy", "spec.replicatedJobs[1].replicas", "-1"});
  WarningWith(grouping, {"spec.replicatedJobs[1].template.spec.parallelism", "string"});
  WarningWith(grouping, {"spec.replicatedJobs[2].name", "missing"});
  EXPECT_EQ(grouping.warnings.size(), 4u) << ::testing::PrintToString(grouping.warnings);
}

TEST(JobSetGrouper, PodWithoutReplicatedJobLabelIsAWarnedGangOfOne) {
  const std::vector<Object> objects = LoadObjects("jobset/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "unlabeled-main-0-0-d3e4f");
  EXPECT_EQ(grouping.pod_group.name, "pg-unlabeled-js-unlabeled");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  WarningWith(grouping, {"Pod ml/unlabeled-main-0-0-d3e4f", "jobset.sigs.k8s.io/replicatedjob-name",
                         "missing"});
}

TEST(JobSetGrouper, ReplicatedJobLabelOfThePodsJobIsUsedWhenThePodLacksIt) {
  const std::vector<Object> objects = LoadObjects("jobset/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "unlabeled-main-1-0-g5h6i");
  EXPECT_EQ(grouping.pod_group.name, "pg-unlabeled-js-unlabeled-main");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(JobSetGrouper, ReplicatedJobMissingFromTheSpecIsAWarnedGangOfOne) {
  const std::vector<Object> objects = LoadObjects("jobset/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "renamed-old-name-0-0-j7k8l");
  EXPECT_EQ(grouping.pod_group.name, "pg-renamed-js-renamed-old-name");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  WarningWith(grouping, {"JobSet ml/renamed", "spec.replicatedJobs", "\"old-name\""});
}

TEST(JobSetGrouper, UnknownOrderIsAnyOrderAndAnOverflowingJobCountsOne) {
  const std::vector<Object> objects = LoadObjects("jobset/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "odd-small-0-0-m9n0p");
  EXPECT_EQ(grouping.pod_group.name, "pg-odd-js-odd");
  EXPECT_EQ(grouping.pod_group.min_member, 3);
  WarningWith(grouping,
              {"JobSet ml/odd", "spec.startupPolicy.startupPolicyOrder", "\"Sequential\""});
  WarningWith(grouping, {"JobSet ml/odd", "spec.replicatedJobs[0]", "overflow"});
  EXPECT_EQ(grouping.warnings.size(), 2u) << ::testing::PrintToString(grouping.warnings);
}

}  // namespace
}  // namespace quotient::podgrouper
