// The rules every grouper starts from (KAI's DefaultGrouper), on bare pods and a custom owner.
#include <gtest/gtest.h>

#include "podgrouper/test_view.h"

namespace quotient::podgrouper {
namespace {

using testing::GroupNamedPod;
using testing::LoadObjects;

TEST(DefaultGrouperTest, ABarePodIsAGroupOfOneNamedAfterIt) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/bare_pods.yaml"), "solo");
  EXPECT_EQ(g.pod_group.name, "pg-solo-uid-solo");
  EXPECT_EQ(g.pod_group.namespace_name, "team-a");
  EXPECT_EQ(g.pod_group.owner.kind, "Pod");
  EXPECT_EQ(g.pod_group.owner.uid, "uid-solo");
  EXPECT_EQ(g.pod_group.min_member, 1);
  EXPECT_TRUE(g.pod_group.sub_groups.empty());
  EXPECT_EQ(g.pod_group.queue, "team-a");
  // The pod's priorityClassName names a PriorityClass that exists.
  EXPECT_EQ(g.pod_group.priority_class_name, "inference");
  EXPECT_EQ(g.pod_group.preemptibility, "");
  EXPECT_EQ(g.pod_group.labels.at("user"), "alice");
  EXPECT_TRUE(g.warnings.empty());
}

TEST(DefaultGrouperTest, QueueFromTheProjectLabelPerNodePoolElseTheDefault) {
  const std::vector<Object> objects = LoadObjects("builtin/bare_pods.yaml");
  EXPECT_EQ(GroupNamedPod(objects, "by-project").pod_group.queue, "vision");
  EXPECT_EQ(GroupNamedPod(objects, "by-project-in-pool").pod_group.queue, "vision-a100");
  EXPECT_EQ(GroupNamedPod(objects, "plain").pod_group.queue, "default-queue");
  Settings settings;
  settings.default_queue = "fallback";
  EXPECT_EQ(GroupNamedPod(objects, "plain", settings).pod_group.queue, "fallback");
}

TEST(DefaultGrouperTest, PriorityFromTheLabelThenAnExistingClassThenTheKindDefault) {
  const std::vector<Object> objects = LoadObjects("builtin/bare_pods.yaml");
  // The priorityClassName label wins.
  EXPECT_EQ(GroupNamedPod(objects, "by-project-in-pool").pod_group.priority_class_name, "build");
  // A spec.priorityClassName naming no PriorityClass: a warning, and the kind's default.
  const Grouping missing = GroupNamedPod(objects, "by-project");
  EXPECT_EQ(missing.pod_group.priority_class_name, "train");
  ASSERT_EQ(missing.warnings.size(), 1u);
  EXPECT_EQ(missing.warnings[0],
            "Pod team-a/by-project: spec.priorityClassName: PriorityClass \"no-such-class\" does "
            "not exist; using the workload's default");
  // The default-priorities ConfigMap overrides the built-in default, by Kind or Kind.group.
  Settings settings;
  settings.kind_defaults["Pod"] = {"build-preemptible", "preemptible"};
  const Grouping configured = GroupNamedPod(objects, "plain", settings);
  EXPECT_EQ(configured.pod_group.priority_class_name, "build-preemptible");
}

TEST(DefaultGrouperTest, PreemptibilityFromTheLabelOrTheKindDefault) {
  const std::vector<Object> objects = LoadObjects("builtin/bare_pods.yaml");
  EXPECT_EQ(GroupNamedPod(objects, "by-project").pod_group.preemptibility, "non-preemptible");
  // An unknown value is ignored with a warning naming the label.
  const Grouping odd = GroupNamedPod(objects, "plain");
  EXPECT_EQ(odd.pod_group.preemptibility, "");
  ASSERT_EQ(odd.warnings.size(), 1u);
  EXPECT_NE(odd.warnings[0].find("kai.scheduler/preemptibility: \"sometimes\""), std::string::npos)
      << odd.warnings[0];
  Settings settings;
  settings.kind_defaults["Pod"] = {"", "preemptible"};
  EXPECT_EQ(GroupNamedPod(objects, "plain", settings).pod_group.preemptibility, "preemptible");
}

TEST(DefaultGrouperTest, AnUnknownOwnerKindGetsTheDefaultRulesByTheTopOwner) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "gizmo-1");
  EXPECT_EQ(g.pod_group.name, "pg-gizmo-uid-widget");
  EXPECT_EQ(g.pod_group.owner.kind, "Widget");
  EXPECT_EQ(g.pod_group.owner.api_version, "example.com/v1");
  EXPECT_TRUE(g.pod_group.owner.controller);
  EXPECT_EQ(g.pod_group.queue, "widgets");
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  // The top owner's labels and annotations go on the PodGroup.
  EXPECT_EQ(g.pod_group.annotations.at("owner-note"), "from-the-widget");
  Settings settings;
  settings.kind_defaults["Widget.example.com"] = {"inference", ""};
  EXPECT_EQ(GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "gizmo-1", settings)
                .pod_group.priority_class_name,
            "inference");
}

}  // namespace
}  // namespace quotient::podgrouper
