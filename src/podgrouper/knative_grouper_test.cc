// Knative Service grouping on object files (testdata/knative/): expected values come from KAI's
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

void ExpectGroupedPerPod(const Grouping& grouping, const std::string& pod, const std::string& uid) {
  EXPECT_EQ(grouping.pod_group.name, "pg-" + pod + "-" + uid);
  EXPECT_EQ(grouping.pod_group.owner.api_version, "v1");
  EXPECT_EQ(grouping.pod_group.owner.kind, "Pod");
  EXPECT_EQ(grouping.pod_group.owner.name, pod);
  EXPECT_EQ(grouping.pod_group.owner.uid, uid);
  EXPECT_EQ(grouping.pod_group.min_member, 1);
}

TEST(KnativeGrouper, GangSchedulesEachRevisionByMinScale) {
  const std::vector<Object> objects = LoadObjects("knative/service.yaml");
  const Grouping grouping = GroupNamedPod(objects, "llm-00001-deployment-6f9d8c7b5-abcde");
  const PodGroupSpec& pod_group = grouping.pod_group;
  EXPECT_EQ(pod_group.name, "pg-llm-00001-rev-llm-1");
  EXPECT_EQ(pod_group.namespace_name, "serving");
  EXPECT_EQ(pod_group.owner.api_version, "serving.knative.dev/v1");
  EXPECT_EQ(pod_group.owner.kind, "Revision");
  EXPECT_EQ(pod_group.owner.name, "llm-00001");
  EXPECT_EQ(pod_group.owner.uid, "rev-llm-1");
  EXPECT_EQ(pod_group.min_member, 3);
  EXPECT_TRUE(pod_group.sub_groups.empty());
  EXPECT_EQ(pod_group.priority_class_name, "inference");
  EXPECT_EQ(pod_group.queue, "serving-q");
  // The Revision's labels and annotations, as if it were the top owner.
  EXPECT_EQ(pod_group.labels.at("serving.knative.dev/configuration"), "llm");
  EXPECT_EQ(pod_group.annotations.at("serving.knative.dev/creator"), "alice");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(KnativeGrouper, RevisionWithoutMinScaleIsAGangOfOne) {
  const std::vector<Object> objects = LoadObjects("knative/service.yaml");
  const Grouping grouping = GroupNamedPod(objects, "echo-00002-deployment-5b7c9d8f6-q1w2e");
  EXPECT_EQ(grouping.pod_group.name, "pg-echo-00002-rev-echo-2");
  EXPECT_EQ(grouping.pod_group.owner.kind, "Revision");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(KnativeGrouper, ScaleToZeroRevisionIsAGangOfOne) {
  const std::vector<Object> objects = LoadObjects("knative/service.yaml");
  const Grouping grouping = GroupNamedPod(objects, "idle-00001-deployment-7d6c5b4a3-z9x8c");
  EXPECT_EQ(grouping.pod_group.name, "pg-idle-00001-rev-idle-1");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(KnativeGrouper, WithoutGangSchedulingEachPodIsItsOwnPodGroup) {
  const std::vector<Object> objects = LoadObjects("knative/service.yaml");
  Settings settings;
  settings.knative_gang = false;
  const Grouping grouping =
      GroupNamedPod(objects, "llm-00001-deployment-6f9d8c7b5-abcde", settings);
  ExpectGroupedPerPod(grouping, "llm-00001-deployment-6f9d8c7b5-abcde", "pod-llm-a");
  EXPECT_EQ(grouping.pod_group.priority_class_name, "inference");
  EXPECT_EQ(grouping.pod_group.queue, "serving-q");
  EXPECT_TRUE(grouping.warnings.empty()) << ::testing::PrintToString(grouping.warnings);
}

TEST(KnativeGrouper, RevisionAlreadyGroupedPerPodStaysPerPod) {
  const std::vector<Object> objects = LoadObjects("knative/legacy.yaml");
  // Two pods, two PodGroups.
  ExpectGroupedPerPod(GroupNamedPod(objects, "old-00001-deployment-7c9f8d6b5-a1a1a"),
                      "old-00001-deployment-7c9f8d6b5-a1a1a", "pod-old-a");
  // One pod whose PodGroup the pod owns.
  ExpectGroupedPerPod(GroupNamedPod(objects, "single-00001-deployment-7c9f8d6b5-c3c3c"),
                      "single-00001-deployment-7c9f8d6b5-c3c3c", "pod-single");
}

TEST(KnativeGrouper, RevisionAlreadyGangScheduledStaysAGang) {
  const std::vector<Object> objects = LoadObjects("knative/legacy.yaml");
  // One pod whose PodGroup the Revision owns.
  const Grouping gang = GroupNamedPod(objects, "gang-00001-deployment-7c9f8d6b5-d4d4d");
  EXPECT_EQ(gang.pod_group.name, "pg-gang-00001-rev-gang-1");
  EXPECT_EQ(gang.pod_group.min_member, 2);
  EXPECT_TRUE(gang.warnings.empty()) << ::testing::PrintToString(gang.warnings);
  // Two pods in one PodGroup.
  const Grouping shared = GroupNamedPod(objects, "shared-00001-deployment-7c9f8d6b5-e5e5e");
  EXPECT_EQ(shared.pod_group.name, "pg-shared-00001-rev-shared-1");
  EXPECT_EQ(shared.pod_group.owner.kind, "Revision");
  EXPECT_EQ(shared.pod_group.min_member, 2);
  EXPECT_TRUE(shared.warnings.empty()) << ::testing::PrintToString(shared.warnings);
}

TEST(KnativeGrouper, UnreadableMinScaleIsWarnedAndAGangOfOne) {
  const std::vector<Object> objects = LoadObjects("knative/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "bad-scale-00001-deployment-7c9f8d6b5-g7g7g");
  EXPECT_EQ(grouping.pod_group.name, "pg-bad-scale-00001-rev-bad-scale-1");
  EXPECT_EQ(grouping.pod_group.min_member, 1);
  WarningWith(grouping, {"Revision serving/bad-scale-00001",
                         "metadata.annotations.autoscaling.knative.dev/min-scale", "\"lots\""});
}

TEST(KnativeGrouper, PodWithoutRevisionLabelUsesTheRevisionAmongItsOwners) {
  const std::vector<Object> objects = LoadObjects("knative/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "unlabeled-00001-deployment-7c9f8d6b5-h8h8h");
  EXPECT_EQ(grouping.pod_group.name, "pg-unlabeled-00001-rev-unlabeled-1");
  EXPECT_EQ(grouping.pod_group.owner.kind, "Revision");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  WarningWith(grouping, {"Pod serving/unlabeled-00001-deployment-7c9f8d6b5-h8h8h",
                         "metadata.labels.serving.knative.dev/revision", "missing",
                         "Revision serving/unlabeled-00001"});
}

TEST(KnativeGrouper, PodGroupOwnedByAnotherKindIsWarnedAndTheRevisionGangScheduled) {
  const std::vector<Object> objects = LoadObjects("knative/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "weird-00001-deployment-7c9f8d6b5-i9i9i");
  EXPECT_EQ(grouping.pod_group.name, "pg-weird-00001-rev-weird-1");
  EXPECT_EQ(grouping.pod_group.min_member, 2);
  WarningWith(grouping, {"Revision serving/weird-00001", "PodGroup pg-weird", "Deployment"});
}

TEST(KnativeGrouper, PodWhoseRevisionIsMissingIsWarnedAndGroupedAlone) {
  const std::vector<Object> objects = LoadObjects("knative/malformed.yaml");
  const Grouping grouping = GroupNamedPod(objects, "orphan-pod");
  ExpectGroupedPerPod(grouping, "orphan-pod", "pod-orphan");
  EXPECT_EQ(grouping.pod_group.priority_class_name, "inference");
  WarningWith(grouping, {"Pod serving/orphan-pod", "metadata.labels.serving.knative.dev/revision",
                         "\"orphan-00001\" not found", "grouped alone"});
}

}  // namespace
}  // namespace quotient::podgrouper
