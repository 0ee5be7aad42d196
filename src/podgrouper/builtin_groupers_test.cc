// Groupers of Kubernetes' own kinds, Spark and Argo, on objects as their controllers make them.
#include <gtest/gtest.h>

#include "podgrouper/test_view.h"

namespace quotient::podgrouper {
namespace {

using testing::GroupNamedPod;
using testing::LoadObjects;

TEST(BuiltinGroupersTest, DeploymentPodsAreGroupsOfOneOwnedByThePod) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "web-7d9f-abcde");
  EXPECT_EQ(g.pod_group.name, "pg-web-7d9f-abcde-uid-web-pod");
  EXPECT_EQ(g.pod_group.owner.kind, "Pod");
  EXPECT_EQ(g.pod_group.owner.name, "web-7d9f-abcde");
  EXPECT_EQ(g.pod_group.min_member, 1);
  // The queue of the top owner (the Deployment), not of the ReplicaSet between.
  EXPECT_EQ(g.pod_group.queue, "serving");
  EXPECT_EQ(g.pod_group.priority_class_name, "inference");
  EXPECT_EQ(g.pod_group.labels.at("app"), "web");
}

TEST(BuiltinGroupersTest, JobPodsAreGroupsOfOneNamedAfterThePodAndTheJob) {
  const std::vector<Object> objects = LoadObjects("builtin/controllers.yaml");
  const Grouping g = GroupNamedPod(objects, "etl-x1");
  EXPECT_EQ(g.pod_group.name, "pg-etl-x1-uid-job");
  EXPECT_EQ(g.pod_group.owner.kind, "Job");
  EXPECT_EQ(g.pod_group.min_member, 1);
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  // A group made under the older per-Job naming is kept.
  EXPECT_EQ(GroupNamedPod(objects, "legacy-q2").pod_group.name, "pg-legacy-uid-legacy");
}

TEST(BuiltinGroupersTest, AMalformedJobWarnsAndGroupsPerPod) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "broken-p1");
  EXPECT_EQ(g.pod_group.name, "pg-broken-p1-uid-broken");
  ASSERT_EQ(g.warnings.size(), 1u);
  EXPECT_EQ(g.warnings[0],
            "Job batch/broken: spec.parallelism: expected a non-negative integer, got -2");
}

TEST(BuiltinGroupersTest, CronJobPodsAreGroupedByTheJobItCreated) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "nightly-2893-kq7");
  EXPECT_EQ(g.pod_group.name, "pg-nightly-2893-uid-cron-job");
  EXPECT_EQ(g.pod_group.owner.kind, "Job");
  EXPECT_EQ(g.pod_group.owner.name, "nightly-2893");
  // The CronJob's queue label still counts: it is an owner above.
  EXPECT_EQ(g.pod_group.queue, "nightly-queue");
}

TEST(BuiltinGroupersTest, StatefulSetPodsShareOneGroup) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "db-0");
  EXPECT_EQ(g.pod_group.name, "pg-db-uid-sts");
  EXPECT_EQ(g.pod_group.owner.kind, "StatefulSet");
  EXPECT_EQ(g.pod_group.min_member, 1);
}

TEST(BuiltinGroupersTest, SparkDriverAndExecutorsShareTheAppsGroup) {
  const std::vector<Object> objects = LoadObjects("builtin/bare_pods.yaml");
  const Grouping driver = GroupNamedPod(objects, "spark-pi-driver");
  const Grouping executor = GroupNamedPod(objects, "spark-pi-exec-1");
  EXPECT_EQ(driver.pod_group.name, "spark-0123");
  EXPECT_EQ(executor.pod_group.name, "spark-0123");
  // Owned by the driver, which the executors' group goes with.
  EXPECT_EQ(executor.pod_group.owner.name, "spark-pi-driver");
}

TEST(BuiltinGroupersTest, ArgoStepPodsAreTheirOwnGroupsWithTheWorkflowsLabels) {
  const Grouping g = GroupNamedPod(LoadObjects("builtin/controllers.yaml"), "pipeline-step-1");
  EXPECT_EQ(g.pod_group.name, "pg-pipeline-step-1-uid-step-1");
  EXPECT_EQ(g.pod_group.owner.kind, "Pod");
  EXPECT_EQ(g.pod_group.queue, "pipelines");
  EXPECT_EQ(g.pod_group.labels.at("workflows.argoproj.io/phase"), "Running");
}

}  // namespace
}  // namespace quotient::podgrouper
