// Kubeflow groupers on jobs and pods as the training and MPI operators make them
// (testdata/kubeflow/). Expected values follow KAI's groupers (kai-reference §9).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "podgrouper/test_view.h"

namespace quotient::podgrouper {
namespace {

using testing::GroupNamedPod;
using testing::LoadObjects;

// Whether one warning names both the object and the field (and `detail`, when given).
bool HasWarning(const Grouping& g, const std::string& object, const std::string& field,
                const std::string& detail = "") {
  for (const std::string& warning : g.warnings) {
    if (warning.find(object) != std::string::npos && warning.find(field) != std::string::npos &&
        warning.find(detail) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string AllWarnings(const Grouping& g) {
  std::string all;
  for (const std::string& warning : g.warnings) all += warning + "\n";
  return all;
}

// --- PyTorchJob ------------------------------------------------------------------------------

TEST(PyTorchJobGrouperTest, MasterAndWorkersAreOneGangWithASubgroupEach) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "train-master-0");
  EXPECT_EQ(g.pod_group.name, "pg-train-uid-train");
  EXPECT_EQ(g.pod_group.owner.kind, "PyTorchJob");
  EXPECT_EQ(g.pod_group.owner.name, "train");
  EXPECT_EQ(g.pod_group.min_member, 4);
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 3, ""}}));
  EXPECT_EQ(g.pod_sub_group, "master");
  EXPECT_EQ(g.pod_group.queue, "research");
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  EXPECT_EQ(g.pod_group.preemptibility, "");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, TheReplicaTypeLabelIsReadCaseInsensitively) {
  // The pod is labeled "Worker", as older training operators wrote it.
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "train-worker-2");
  EXPECT_EQ(g.pod_group.name, "pg-train-uid-train");
  EXPECT_EQ(g.pod_sub_group, "worker");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, MinAvailableWinsOverElasticMinReplicasAndReplicas) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "gang-of-two-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
  // The workers' subgroup holds what minAvailable leaves after the master.
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 1, ""}}));
  EXPECT_EQ(g.pod_sub_group, "worker");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, ElasticMinReplicasSizesTheGangWithoutMinAvailable) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "elastic-worker-5");
  EXPECT_EQ(g.pod_group.min_member, 3);
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 2, ""}}));
  EXPECT_EQ(g.pod_sub_group, "worker");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, AWorkerSubgroupNeverAsksForFewerThanOnePod) {
  const Grouping g =
      GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "master-only-gang-master-0");
  EXPECT_EQ(g.pod_group.min_member, 1);
  // minAvailable 1 minus 1 master leaves 0 workers, which the PodGroup CRD does not allow.
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 1, ""}}));
  EXPECT_EQ(g.pod_sub_group, "master");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, AJobWithoutMasterHasOnlyTheWorkerSubgroup) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/pytorch.yaml"), "workers-worker-1");
  EXPECT_EQ(g.pod_group.name, "pg-workers-uid-workers");
  EXPECT_EQ(g.pod_group.min_member, 2);
  EXPECT_EQ(g.pod_group.sub_groups, (std::vector<SubGroupSpec>{{"worker", 2, ""}}));
  EXPECT_EQ(g.pod_sub_group, "worker");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(PyTorchJobGrouperTest, SegmentSizeCutsTheWorkersIntoSegmentSubgroups) {
  const std::vector<Object> objects = LoadObjects("kubeflow/pytorch.yaml");
  const std::vector<SubGroupSpec> expected = {{"master", 1, ""},
                                              {"worker", 5, ""},
                                              {"worker-0", 2, "worker"},
                                              {"worker-1", 2, "worker"},
                                              {"worker-2", 1, "worker"}};
  const Grouping third = GroupNamedPod(objects, "segmented-worker-3");
  EXPECT_EQ(third.pod_group.min_member, 6);
  EXPECT_EQ(third.pod_group.sub_groups, expected);
  EXPECT_EQ(third.pod_sub_group, "worker-1");
  EXPECT_TRUE(third.warnings.empty()) << AllWarnings(third);

  const Grouping last = GroupNamedPod(objects, "segmented-worker-4");
  EXPECT_EQ(last.pod_group.sub_groups, expected);
  EXPECT_EQ(last.pod_sub_group, "worker-2");

  // The master pod has no segment annotation of its own; the Worker template's still applies.
  const Grouping master = GroupNamedPod(objects, "segmented-master-0");
  EXPECT_EQ(master.pod_group.sub_groups, expected);
  EXPECT_EQ(master.pod_sub_group, "master");
  EXPECT_TRUE(master.warnings.empty()) << AllWarnings(master);
}

// --- TFJob, XGBoostJob, JAXJob ---------------------------------------------------------------

TEST(TFJobGrouperTest, EveryReplicaTypeCountsTowardsTheGang) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/tfjob.yaml"), "mnist-ps-1");
  EXPECT_EQ(g.pod_group.name, "pg-mnist-uid-mnist");
  EXPECT_EQ(g.pod_group.owner.kind, "TFJob");
  EXPECT_EQ(g.pod_group.min_member, 7);
  EXPECT_TRUE(g.pod_group.sub_groups.empty());
  EXPECT_EQ(g.pod_sub_group, "");
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(TFJobGrouperTest, MinAvailableSizesTheGang) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/tfjob.yaml"), "partial-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  // The pod's own PriorityClass, which exists, wins over the kind's default.
  EXPECT_EQ(g.pod_group.priority_class_name, "high");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(XGBoostJobGrouperTest, MasterAndWorkersAreOneGang) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/xgboost.yaml"), "boost-worker-0");
  EXPECT_EQ(g.pod_group.name, "pg-boost-uid-boost");
  EXPECT_EQ(g.pod_group.owner.kind, "XGBoostJob");
  EXPECT_EQ(g.pod_group.min_member, 3);
  EXPECT_TRUE(g.pod_group.sub_groups.empty());
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(XGBoostJobGrouperTest, AMissingMasterIsWarnedAndTheWorkersPresentCount) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/xgboost.yaml"), "masterless-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_EQ(g.warnings[0],
            "XGBoostJob ml/masterless: spec.xgbReplicaSpecs: no Master replica spec, which "
            "XGBoostJob requires; counting the replica types present");
}

TEST(JAXJobGrouperTest, TheWorkersAreOneGang) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/jax.yaml"), "flax-worker-3");
  EXPECT_EQ(g.pod_group.name, "pg-flax-uid-flax");
  EXPECT_EQ(g.pod_group.owner.kind, "JAXJob");
  EXPECT_EQ(g.pod_group.min_member, 4);
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(JAXJobGrouperTest, AMissingWorkerIsWarnedAndTheGangIsOne) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/jax.yaml"), "no-workers-pod");
  EXPECT_EQ(g.pod_group.name, "pg-no-workers-uid-no-workers");
  EXPECT_EQ(g.pod_group.min_member, 1);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "JAXJob ml/no-workers", "spec.jaxReplicaSpecs", "no Worker"))
      << AllWarnings(g);
}

// --- MPIJob ----------------------------------------------------------------------------------

TEST(MPIJobGrouperTest, WaitingForWorkersWithoutALauncherLeavesTheLauncherOut) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/mpi.yaml"), "waiting-worker-0");
  EXPECT_EQ(g.pod_group.name, "pg-waiting-uid-waiting");
  EXPECT_EQ(g.pod_group.owner.kind, "MPIJob");
  EXPECT_EQ(g.pod_group.owner.api_version, "kubeflow.org/v2beta1");
  EXPECT_EQ(g.pod_group.min_member, 4);
  EXPECT_TRUE(g.pod_group.sub_groups.empty());
  EXPECT_EQ(g.pod_group.priority_class_name, "train");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(MPIJobGrouperTest, WaitingForWorkersWithALiveLauncherCountsTheLauncher) {
  const std::vector<Object> objects = LoadObjects("kubeflow/mpi.yaml");
  const Grouping worker = GroupNamedPod(objects, "launched-worker-2");
  EXPECT_EQ(worker.pod_group.min_member, 5);
  EXPECT_TRUE(worker.warnings.empty()) << AllWarnings(worker);
  // The launcher pod, under the operator's batch Job, is grouped by the MPIJob above the Job.
  const Grouping launcher = GroupNamedPod(objects, "launched-launcher-x7k2p");
  EXPECT_EQ(launcher.pod_group.name, "pg-launched-uid-launched");
  EXPECT_EQ(launcher.pod_group.owner.kind, "MPIJob");
  EXPECT_EQ(launcher.pod_group.min_member, 5);
}

TEST(MPIJobGrouperTest, ATerminatingLauncherIsNotALiveOne) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/mpi.yaml"), "relaunching-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
}

TEST(MPIJobGrouperTest, TheLauncherIsLeftOutOfMinAvailableToo) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/mpi.yaml"), "subset-worker-7");
  EXPECT_EQ(g.pod_group.min_member, 2);
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

TEST(MPIJobGrouperTest, WithoutTheLauncherPolicyLauncherAndWorkersAreOneGang) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/mpi.yaml"), "classic-worker-1");
  EXPECT_EQ(g.pod_group.name, "pg-classic-uid-classic");
  EXPECT_EQ(g.pod_group.owner.api_version, "kubeflow.org/v1");
  EXPECT_EQ(g.pod_group.min_member, 3);
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

// --- Notebook --------------------------------------------------------------------------------

TEST(NotebookGrouperTest, ANotebookIsAGroupOfOneWithBuildPriority) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/notebook.yaml"), "lab-0");
  EXPECT_EQ(g.pod_group.name, "pg-lab-uid-lab");
  EXPECT_EQ(g.pod_group.owner.kind, "Notebook");
  EXPECT_EQ(g.pod_group.owner.api_version, "kubeflow.org/v1beta1");
  EXPECT_EQ(g.pod_group.min_member, 1);
  EXPECT_TRUE(g.pod_group.sub_groups.empty());
  EXPECT_EQ(g.pod_group.queue, "team-a");
  EXPECT_EQ(g.pod_group.priority_class_name, "build");
  EXPECT_TRUE(g.warnings.empty()) << AllWarnings(g);
}

// --- Malformed specs -------------------------------------------------------------------------

TEST(KubeflowMalformedTest, MissingReplicasCountOnePod) {
  const Grouping g =
      GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "missing-replicas-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 1, ""}}));
  EXPECT_EQ(g.pod_sub_group, "worker");
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_EQ(g.warnings[0],
            "PyTorchJob ml/missing-replicas: spec.pytorchReplicaSpecs.Worker.replicas: missing; "
            "counting 1 pod, the training operator's default");
}

TEST(KubeflowMalformedTest, NegativeReplicasCountOnePod) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "negative-ps-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "TFJob ml/negative", "spec.tfReplicaSpecs.Worker.replicas", "-2"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, NonNumericReplicasCountOnePod) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "non-numeric-chief-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(
      HasWarning(g, "TFJob ml/non-numeric", "spec.tfReplicaSpecs.Worker.replicas", "string"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, ZeroReplicasAreWarnedAndCountNoPods) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "zero-ps-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 2);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "TFJob ml/zero-ps", "spec.tfReplicaSpecs.PS.replicas", "0 pods"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, AnUnknownReplicaTypeIsWarnedAndCounted) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "unknown-type-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(
      HasWarning(g, "TFJob ml/unknown-type", "spec.tfReplicaSpecs.Sidecar", "unknown replica type"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, AReplicaSpecThatIsNotAMapCountsOnePod) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "scalar-spec-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(
      HasWarning(g, "XGBoostJob ml/scalar-spec", "spec.xgbReplicaSpecs.Master", "expected a map"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, ReplicaSpecsThatAreNotAMapGiveAGangOfOne) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "list-specs-pod");
  EXPECT_EQ(g.pod_group.name, "pg-list-specs-uid-list-specs");
  EXPECT_EQ(g.pod_group.min_member, 1);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "TFJob ml/list-specs", "spec.tfReplicaSpecs", "expected a map"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, MissingReplicaSpecsGiveAGangOfOne) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "no-specs-pod");
  EXPECT_EQ(g.pod_group.min_member, 1);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "MPIJob ml/no-specs", "spec.mpiReplicaSpecs", "missing"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, AnMPIJobWithoutLauncherIsWarnedAndItsWorkersCount) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "no-launcher-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "MPIJob ml/no-launcher", "spec.mpiReplicaSpecs", "no Launcher"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, UnreadableMinimumsAreIgnoredForTheReplicas) {
  const Grouping g =
      GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "bad-min-available-master-0");
  EXPECT_EQ(g.pod_group.min_member, 3);
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{{"master", 1, ""}, {"worker", 2, ""}}));
  EXPECT_EQ(g.pod_sub_group, "master");
  ASSERT_EQ(g.warnings.size(), 2u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "PyTorchJob ml/bad-min-available",
                         "spec.runPolicy.schedulingPolicy.minAvailable", "ignored"))
      << AllWarnings(g);
  EXPECT_TRUE(
      HasWarning(g, "PyTorchJob ml/bad-min-available", "spec.elasticPolicy.minReplicas", "ignored"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, AnUnreadableSegmentSizeLeavesTheWorkersOneSubgroup) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "bad-segments-worker-0");
  EXPECT_EQ(g.pod_group.min_member, 4);
  EXPECT_EQ(g.pod_group.sub_groups, (std::vector<SubGroupSpec>{{"worker", 4, ""}}));
  EXPECT_EQ(g.pod_sub_group, "worker");
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "PyTorchJob ml/bad-segments",
                         "spec.pytorchReplicaSpecs.Worker.template.metadata.annotations."
                         "kai.scheduler/segment-size",
                         "\"two\""))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, ASegmentedWorkerWithoutReplicaIndexIsWarnedAndInNoSubgroup) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "no-index-worker");
  EXPECT_EQ(g.pod_group.min_member, 4);
  EXPECT_EQ(g.pod_group.sub_groups,
            (std::vector<SubGroupSpec>{
                {"worker", 4, ""}, {"worker-0", 2, "worker"}, {"worker-1", 2, "worker"}}));
  EXPECT_EQ(g.pod_sub_group, "");
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "Pod ml/no-index-worker", "training.kubeflow.org/replica-index"))
      << AllWarnings(g);
}

TEST(KubeflowMalformedTest, APodWithoutReplicaTypeIsWarnedAndInNoSubgroup) {
  const Grouping g = GroupNamedPod(LoadObjects("kubeflow/malformed.yaml"), "unlabeled-pod");
  EXPECT_EQ(g.pod_group.min_member, 2);
  EXPECT_EQ(g.pod_sub_group, "");
  ASSERT_EQ(g.warnings.size(), 1u) << AllWarnings(g);
  EXPECT_TRUE(HasWarning(g, "Pod ml/unlabeled-pod", "training.kubeflow.org/replica-type",
                         "PyTorchJob ml/unlabeled"))
      << AllWarnings(g);
}

}  // namespace
}  // namespace quotient::podgrouper
