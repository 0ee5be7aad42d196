// Ray grouping on object files (testdata/ray/): expected values come from KAI's rules
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

TEST(RayGrouper, RayClusterGangIsHeadPlusEachWorkerGroupsMinimumTimesHosts) {
  const std::vector<Object> objects = LoadObjects("ray/raycluster.yaml");
  const Grouping grouping = GroupNamedPod(objects, "mnist-head-x7p2q");
  const PodGroupSpec& pod_group = grouping.pod_group;

  EXPECT_EQ(pod_group.name, "pg-mnist-rc-mnist");
  EXPECT_EQ(pod_group.namespace_name, "team-a");
  EXPECT_EQ(pod_group.owner.api_version, "ray.io/v1");
  EXPECT_EQ(pod_group.owner.kind, "RayCluster");
  EXPECT_EQ(pod_group.owner.name, "mnist");
  EXPECT_EQ(pod_group.owner.uid, "rc-mnist");
  // 1 head + small-group minReplicas 2 + tpu-slice 2 x 4 hosts + the unnamed group's 1.
  EXPECT_EQ(pod_group.min_member, 12);
  const std::vector<SubGroupSpec> expected = {{"headgroup", 1, ""},
                                              {"small-group", 2, ""},
                                              {"tpu-slice", 8, ""},
                                              {"worker-group-4", 1, ""}};
  EXPECT_EQ(pod_group.sub_groups, expected);
  EXPECT_EQ(grouping.pod_sub_group, "headgroup");
  EXPECT_EQ(pod_group.queue, "team-a");
  EXPECT_EQ(pod_group.priority_class_name, "train");
  EXPECT_EQ(pod_group.annotations.at("owner"), "vision-team");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(RayGrouper, WorkerPodJoinsItsWorkerGroupsSubgroup) {
  const std::vector<Object> objects = LoadObjects("ray/raycluster.yaml");
  const Grouping small = GroupNamedPod(objects, "mnist-small-group-worker-8k2lm");
  EXPECT_EQ(small.pod_group.name, "pg-mnist-rc-mnist");
  EXPECT_EQ(small.pod_sub_group, "small-group");
  const Grouping tpu = GroupNamedPod(objects, "mnist-tpu-slice-worker-4vb9z");
  EXPECT_EQ(tpu.pod_sub_group, "tpu-slice");
  EXPECT_TRUE(tpu.warnings.empty()) << ::testing::PrintToString(tpu.warnings);
}

TEST(RayGrouper, PodOfAGroupWithoutSubgroupIsWarnedAndJoinsNone) {
  const std::vector<Object> objects = LoadObjects("ray/raycluster.yaml");
  const Grouping grouping = GroupNamedPod(objects, "mnist-idle-worker-q9d4t");
  EXPECT_EQ(grouping.pod_group.min_member, 12);
  EXPECT_EQ(grouping.pod_sub_group, "");
  const std::string warning = WarningWith(grouping, {"ray.io/group", "\"idle\""});
  EXPECT_NE(warning.find("mnist-idle-worker-q9d4t"), std::string::npos) << warning;
}

TEST(RayGrouper, RayJobIsSizedFromTheClusterInItsStatusAndOwnsThePodGroup) {
  const std::vector<Object> objects = LoadObjects("ray/rayjob.yaml");
  for (const char* pod : {"finetune-raycluster-7bx2k-head-m2x8c",
                          "finetune-raycluster-7bx2k-gpu-workers-worker-p4r7n"}) {
    SCOPED_TRACE(pod);
    const Grouping grouping = GroupNamedPod(objects, pod);
    EXPECT_EQ(grouping.pod_group.name, "pg-finetune-rj-finetune");
    EXPECT_EQ(grouping.pod_group.owner.kind, "RayJob");
    EXPECT_EQ(grouping.pod_group.owner.uid, "rj-finetune");
    EXPECT_EQ(grouping.pod_group.min_member, 5);
    const std::vector<SubGroupSpec> expected = {{"headgroup", 1, ""}, {"gpu-workers", 4, ""}};
    EXPECT_EQ(grouping.pod_group.sub_groups, expected);
    EXPECT_EQ(grouping.pod_group.queue, "research");
    EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
  }
  EXPECT_EQ(GroupNamedPod(objects, "finetune-raycluster-7bx2k-head-m2x8c").pod_sub_group,
            "headgroup");
  EXPECT_EQ(
      GroupNamedPod(objects, "finetune-raycluster-7bx2k-gpu-workers-worker-p4r7n").pod_sub_group,
      "gpu-workers");
}

TEST(RayGrouper, RayPriorityClassLabelOnTheTopOwnerOverridesPriority) {
  const std::vector<Object> objects = LoadObjects("ray/rayjob.yaml");
  const Grouping grouping = GroupNamedPod(objects, "finetune-raycluster-7bx2k-head-m2x8c");
  EXPECT_EQ(grouping.pod_group.priority_class_name, "high-priority");
}

TEST(RayGrouper, RayJobSubmitterPodSharesThePodGroupWithoutASubgroup) {
  const std::vector<Object> objects = LoadObjects("ray/rayjob.yaml");
  const Grouping grouping = GroupNamedPod(objects, "finetune-xk2p9");
  EXPECT_EQ(grouping.pod_group.name, "pg-finetune-rj-finetune");
  EXPECT_EQ(grouping.pod_group.min_member, 5);
  EXPECT_EQ(grouping.pod_group.sub_groups.size(), 2u);
  EXPECT_EQ(grouping.pod_sub_group, "");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(RayGrouper, RayServiceIsSizedFromItsActiveClusterWhilePendingPodsSchedule) {
  const std::vector<Object> objects = LoadObjects("ray/rayservice.yaml");
  const Grouping grouping =
      GroupNamedPod(objects, "summarize-raycluster-bbbbb-workers-worker-7c2kd");
  EXPECT_EQ(grouping.pod_group.name, "pg-summarize-rs-summarize");
  EXPECT_EQ(grouping.pod_group.owner.kind, "RayService");
  EXPECT_EQ(grouping.pod_group.min_member, 3);  // the active cluster's 1 + 2, not the pending 7
  const std::vector<SubGroupSpec> expected = {{"headgroup", 1, ""}, {"workers", 2, ""}};
  EXPECT_EQ(grouping.pod_group.sub_groups, expected);
  EXPECT_EQ(grouping.pod_sub_group, "workers");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(RayGrouper, RayServiceWithOnlyAPendingClusterIsSizedFromIt) {
  const std::vector<Object> objects = LoadObjects("ray/rayservice.yaml");
  const Grouping grouping = GroupNamedPod(objects, "translate-raycluster-ccccc-head-z8w4f");
  EXPECT_EQ(grouping.pod_group.name, "pg-translate-rs-translate");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  EXPECT_EQ(grouping.pod_sub_group, "headgroup");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(RayGrouper, ExistingFlatPodGroupStaysFlat) {
  const std::vector<Object> objects = LoadObjects("ray/legacy.yaml");
  const Grouping grouping = GroupNamedPod(objects, "old-worker-workers-h5k2d");
  EXPECT_EQ(grouping.pod_group.name, "pg-old-rc-old");
  EXPECT_EQ(grouping.pod_group.owner.api_version, "ray.io/v1alpha1");
  EXPECT_EQ(grouping.pod_group.min_member, 2);  // 1 head + minReplicas 1
  EXPECT_TRUE(grouping.pod_group.sub_groups.empty());
  EXPECT_EQ(grouping.pod_sub_group, "");
}

TEST(RayGrouper, ExistingPodGroupWithSubgroupsKeepsThem) {
  const std::vector<Object> objects = LoadObjects("ray/legacy.yaml");
  const Grouping grouping = GroupNamedPod(objects, "upgraded-worker-workers-n3q8s");
  EXPECT_EQ(grouping.pod_group.min_member, 4);  // 1 head + replicas 3 (minReplicas 0)
  const std::vector<SubGroupSpec> expected = {{"headgroup", 1, ""}, {"workers", 3, ""}};
  EXPECT_EQ(grouping.pod_group.sub_groups, expected);
  EXPECT_EQ(grouping.pod_sub_group, "workers");
}

TEST(RayGrouper, MalformedWorkerGroupsAreWarnedAndGetSafeDefaults) {
  const std::vector<Object> objects = LoadObjects("ray/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "broken-head-t6v2b");
  EXPECT_EQ(grouping.pod_group.min_member, 8);
  const std::vector<SubGroupSpec> expected = {
      {"headgroup", 1, ""}, {"wordy", 1, ""}, {"greedy", 3, ""}, {"hosts", 2, ""}, {"lazy", 1, ""}};
  EXPECT_EQ(grouping.pod_group.sub_groups, expected);
  EXPECT_EQ(grouping.pod_sub_group, "headgroup");

  WarningWith(grouping, {"RayCluster team-c/broken", "spec.workerGroupSpecs[0]", "not a map"});
  WarningWith(grouping, {"RayCluster team-c/broken", "spec.workerGroupSpecs[1].replicas", "-2"});
  WarningWith(grouping, {"spec.workerGroupSpecs[2].replicas", "string"});
  WarningWith(grouping, {"spec.workerGroupSpecs[3].minReplicas", "3 exceeds replicas 1"});
  WarningWith(grouping, {"spec.workerGroupSpecs[4].numOfHosts", "string"});
  WarningWith(grouping, {"spec.workerGroupSpecs[5].suspend", "not a bool"});
  EXPECT_EQ(grouping.warnings.size(), 6u) << ::testing::PrintToString(grouping.warnings);
}

TEST(RayGrouper, WorkerGroupSpecsThatIsNotAListLeavesOnlyTheHead) {
  const std::vector<Object> objects = LoadObjects("ray/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "flat-head-b8m3x");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  const std::vector<SubGroupSpec> expected = {{"headgroup", 1, ""}};
  EXPECT_EQ(grouping.pod_group.sub_groups, expected);
  WarningWith(grouping, {"RayCluster team-c/flat", "spec.workerGroupSpecs", "not a list"});
}

TEST(RayGrouper, RayJobWithoutClusterNameFallsBackToTheOwningCluster) {
  const std::vector<Object> objects = LoadObjects("ray/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "early-raycluster-q4n7z-head-c5d9h");
  EXPECT_EQ(grouping.pod_group.name, "pg-early-rj-early");
  EXPECT_EQ(grouping.pod_group.owner.kind, "RayJob");
  EXPECT_EQ(grouping.pod_group.min_member, 3);
  EXPECT_EQ(grouping.pod_sub_group, "headgroup");
  WarningWith(grouping, {"RayJob team-c/early", "status.rayClusterName", "missing",
                         "RayCluster team-c/early-raycluster-q4n7z"});
}

TEST(RayGrouper, RayJobWhoseClusterIsGoneIsAGangOfOne) {
  const std::vector<Object> objects = LoadObjects("ray/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "lost-r2d2x");
  EXPECT_EQ(grouping.pod_group.name, "pg-lost-rj-lost");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  EXPECT_TRUE(grouping.pod_group.sub_groups.empty());
  EXPECT_EQ(grouping.pod_sub_group, "");
  WarningWith(grouping,
              {"RayJob team-c/lost", "status.rayClusterName", "lost-raycluster-gone", "not found"});
}

TEST(RayGrouper, RayServiceWithoutClusterNamesWarnsAboutBothStatusFields) {
  const std::vector<Object> objects = LoadObjects("ray/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "nameless-raycluster-k2j4m-head-w7x1p");
  EXPECT_EQ(grouping.pod_group.name, "pg-nameless-rs-nameless");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  WarningWith(grouping, {"RayService team-c/nameless", "status.activeServiceStatus.rayClusterName",
                         "status.pendingServiceStatus.rayClusterName", "missing"});
}

}  // namespace
}  // namespace quotient::podgrouper
