// LeaderWorkerSet grouping on object files (testdata/lws/): expected values come from KAI's
// rules (kai-reference §9), worked out in each file's comments.
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

const std::vector<SubGroupSpec> kLeaderOnly = {{"leader", 1, ""}};

std::vector<SubGroupSpec> LeaderAndWorkers(int32_t workers) {
  return {{"leader", 1, ""}, {"workers", workers, ""}};
}

TEST(LeaderWorkerSetGrouper, LeaderCreatedGroupIsOneGangOfTheGroupSize) {
  const std::vector<Object> objects = LoadObjects("lws/leader_created.yaml");
  const Grouping grouping = GroupNamedPod(objects, "vllm-1");
  const PodGroupSpec& pod_group = grouping.pod_group;
  EXPECT_EQ(pod_group.name, "pg-vllm-lws-vllm-group-1");
  EXPECT_EQ(pod_group.namespace_name, "serving");
  EXPECT_EQ(pod_group.owner.api_version, "leaderworkerset.x-k8s.io/v1");
  EXPECT_EQ(pod_group.owner.kind, "LeaderWorkerSet");
  EXPECT_EQ(pod_group.owner.name, "vllm");
  EXPECT_EQ(pod_group.owner.uid, "lws-vllm");
  EXPECT_EQ(pod_group.min_member, 4);
  EXPECT_EQ(pod_group.sub_groups, LeaderAndWorkers(3));
  EXPECT_EQ(grouping.pod_sub_group, "leader");
  EXPECT_EQ(pod_group.queue, "serving");
  EXPECT_EQ(pod_group.priority_class_name, "train");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(LeaderWorkerSetGrouper, WorkerOwnedThroughItsLeaderPodJoinsItsGroupsWorkers) {
  const std::vector<Object> objects = LoadObjects("lws/leader_created.yaml");
  const Grouping grouping = GroupNamedPod(objects, "vllm-0-2");
  EXPECT_EQ(grouping.pod_group.name, "pg-vllm-lws-vllm-group-0");
  EXPECT_EQ(grouping.pod_group.owner.kind, "LeaderWorkerSet");
  EXPECT_EQ(grouping.pod_group.min_member, 4);
  EXPECT_EQ(grouping.pod_group.sub_groups, LeaderAndWorkers(3));
  EXPECT_EQ(grouping.pod_sub_group, "workers");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(LeaderWorkerSetGrouper, SizeOneWithoutStartupPolicyIsALeaderAlone) {
  const std::vector<Object> objects = LoadObjects("lws/leader_created.yaml");
  const Grouping grouping = GroupNamedPod(objects, "tiny-0");
  EXPECT_EQ(grouping.pod_group.name, "pg-tiny-lws-tiny-group-0");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  EXPECT_EQ(grouping.pod_group.sub_groups, kLeaderOnly);
  EXPECT_EQ(grouping.pod_sub_group, "leader");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(LeaderWorkerSetGrouper, LeaderReadyUnscheduledLeaderIsAGangOfOne) {
  const std::vector<Object> objects = LoadObjects("lws/leader_ready.yaml");
  const Grouping grouping = GroupNamedPod(objects, "sglang-0");
  EXPECT_EQ(grouping.pod_group.name, "pg-sglang-lws-sglang-group-0");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  EXPECT_EQ(grouping.pod_group.sub_groups, kLeaderOnly);
  EXPECT_EQ(grouping.pod_sub_group, "leader");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(LeaderWorkerSetGrouper, LeaderReadyScheduledGroupUsesTheSizeOnThePod) {
  const std::vector<Object> objects = LoadObjects("lws/leader_ready.yaml");
  for (const char* pod : {"sglang-1", "sglang-1-1"}) {
    SCOPED_TRACE(pod);
    const Grouping grouping = GroupNamedPod(objects, pod);
    EXPECT_EQ(grouping.pod_group.name, "pg-sglang-lws-sglang-group-1");
    EXPECT_EQ(grouping.pod_group.min_member, 2);  // the pods' size annotation, not the spec's 3
    EXPECT_EQ(grouping.pod_group.sub_groups, LeaderAndWorkers(1));
    EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
  }
  EXPECT_EQ(GroupNamedPod(objects, "sglang-1").pod_sub_group, "leader");
  EXPECT_EQ(GroupNamedPod(objects, "sglang-1-1").pod_sub_group, "workers");
}

TEST(LeaderWorkerSetGrouper, LeaderReadyScheduledLeaderWithoutSizeAnnotationUsesTheSpec) {
  const std::vector<Object> objects = LoadObjects("lws/leader_ready.yaml");
  const Grouping grouping = GroupNamedPod(objects, "sglang-2");
  EXPECT_EQ(grouping.pod_group.name, "pg-sglang-lws-sglang-group-2");
  EXPECT_EQ(grouping.pod_group.min_member, 3);
  EXPECT_EQ(grouping.pod_group.sub_groups, LeaderAndWorkers(2));
}

TEST(LeaderWorkerSetGrouper, MissingNegativeOrZeroSizeIsWarnedAndALeaderAlone) {
  const std::vector<Object> objects = LoadObjects("lws/malformed.yaml");
  struct Case {
    const char* pod;
    const char* lws;
    const char* problem;
  };
  for (const Case& c : {Case{"sizeless-0", "LeaderWorkerSet serving/sizeless", "missing"},
                        Case{"negative-0", "LeaderWorkerSet serving/negative", "-3"},
                        Case{"zero-0", "LeaderWorkerSet serving/zero", "0 is not a group size"}}) {
    SCOPED_TRACE(c.pod);
    const Grouping grouping = GroupNamedPod(objects, c.pod);
    EXPECT_EQ(grouping.pod_group.min_member, 1);
    EXPECT_EQ(grouping.pod_group.sub_groups, kLeaderOnly);
    EXPECT_EQ(grouping.pod_sub_group, "leader");
    WarningWith(grouping, {c.lws, "spec.leaderWorkerTemplate.size", c.problem});
    EXPECT_EQ(grouping.warnings.size(), 1u) << ::testing::PrintToString(grouping.warnings);
  }
}

TEST(LeaderWorkerSetGrouper, UnknownStartupPolicyIsWarnedAndLeaderCreated) {
  const std::vector<Object> objects = LoadObjects("lws/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "odd-policy-0");
  EXPECT_EQ(grouping.pod_group.name, "pg-odd-policy-lws-odd-policy-group-0");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  EXPECT_EQ(grouping.pod_group.sub_groups, LeaderAndWorkers(1));
  WarningWith(grouping, {"LeaderWorkerSet serving/odd-policy", "spec.startupPolicy", "unknown"});
}

TEST(LeaderWorkerSetGrouper, UnreadableSizeAnnotationIsWarnedAndTheSpecSizeUsed) {
  const std::vector<Object> objects = LoadObjects("lws/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "bad-annotation-0");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  WarningWith(grouping, {"Pod serving/bad-annotation-0",
                         "metadata.annotations.leaderworkerset.sigs.k8s.io/size", "\"lots\""});
}

TEST(LeaderWorkerSetGrouper, PodWithoutGroupIndexJoinsTheLwsWidePodGroupWithAWarning) {
  const std::vector<Object> objects = LoadObjects("lws/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "unindexed-0");
  EXPECT_EQ(grouping.pod_group.name, "pg-unindexed-lws-unindexed");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  EXPECT_EQ(grouping.pod_sub_group, "leader");
  WarningWith(grouping, {"Pod serving/unindexed-0",
                         "metadata.labels.leaderworkerset.sigs.k8s.io/group-index", "missing"});
}

TEST(LeaderWorkerSetGrouper, GarbledIndexLabelsAreWarnedAndThePodTakenForAWorker) {
  const std::vector<Object> objects = LoadObjects("lws/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "unindexed-0-1");
  EXPECT_EQ(grouping.pod_group.name, "pg-unindexed-lws-unindexed");
  EXPECT_EQ(grouping.pod_group.owner.kind, "LeaderWorkerSet");
  EXPECT_EQ(grouping.pod_sub_group, "workers");
  WarningWith(grouping, {"leaderworkerset.sigs.k8s.io/group-index", "\"first\""});
  WarningWith(grouping, {"leaderworkerset.sigs.k8s.io/worker-index", "missing"});
  EXPECT_EQ(grouping.warnings.size(), 2u) << ::testing::PrintToString(grouping.warnings);
}

}  // namespace
}  // namespace quotient::podgrouper
