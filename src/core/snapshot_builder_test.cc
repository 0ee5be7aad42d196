#include "core/snapshot_builder.h"

#include <gtest/gtest.h>

#include "builders/objects.h"
#include "core/accounting.h"

namespace quotient::core {
namespace {

using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

SnapshotBuild Build(const ClusterObjects& objects) {
  SnapshotOptions options;
  options.scheduler_name = "quotient";
  return BuildSnapshot(objects, options);
}

const Pod& PodByKey(const Snapshot& s, std::string_view key) {
  const Index i = s.FindPod(key);
  EXPECT_NE(i, kNone) << key;
  return s.pods[static_cast<size_t>(i)];
}
const Job& JobByKey(const Snapshot& s, std::string_view key) {
  const Index i = s.FindJob(key);
  EXPECT_NE(i, kNone) << key;
  return s.jobs[static_cast<size_t>(i)];
}
const Queue& QueueByName(const Snapshot& s, std::string_view name) {
  const Index i = s.FindQueue(name);
  EXPECT_NE(i, kNone) << name;
  return s.queues[static_cast<size_t>(i)];
}
bool AnyContains(const std::vector<std::string>& messages, std::string_view needle) {
  for (const std::string& m : messages) {
    if (m.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(PodRequest, IsMaxOfContainerSumAndLargestInitPlusOverheadAndOnePod) {
  PodObject p = MakePod("ns", "p").Cpu("1").Memory("1Gi");
  p.containers.push_back({"side", {}, false});
  p.containers.back().requests.cpu_milli = Quantity(500);
  p.init_containers.push_back({"init", {}, false});
  p.init_containers.back().requests.cpu_milli = Quantity(2000);        // larger than 1.5
  p.init_containers.back().requests.memory_bytes = Quantity(1 << 20);  // smaller than 1Gi
  p.overhead.cpu_milli = Quantity(100);
  ClusterObjects objects;
  objects.pods.push_back(p);
  const Snapshot s = Build(objects).snapshot;
  const Pod& pod = PodByKey(s, "ns/p");
  EXPECT_EQ(pod.request.cpu_milli, Quantity(2100));
  EXPECT_EQ(pod.request.memory_bytes, Quantity(int64_t{1} << 30));
  EXPECT_EQ(pod.request.pods_milli, Quantity(1000));
}

TEST(PodMetadata, AnnotationsAreReadIntoFieldsAndNotCarried) {
  // Annotations can be large (kubectl's last-applied configuration); the snapshot keeps only
  // what it reads from them.
  ClusterObjects o;
  o.queues.push_back(MakeQueue("q").Gpu(1, -1, 1));
  o.pod_groups.push_back(MakeGroup("ns", "pg").Queue("q"));
  o.pods.push_back(
      MakePod("ns", "p")
          .Group("pg")
          .Annotation("gpu-fraction", "0.5")
          .Annotation("kubectl.kubernetes.io/last-applied-configuration", std::string(4096, 'x')));
  const Snapshot s = Build(o).snapshot;
  const Pod& pod = s.pods.at(0);
  EXPECT_TRUE(pod.meta.annotations.empty());
  EXPECT_EQ(pod.pod_group_name, "pg");
  EXPECT_EQ(pod.gpu.kind, GpuSharing::Kind::kFraction);
  EXPECT_EQ(s.jobs.at(static_cast<size_t>(pod.job)).key, "ns/pg");
}

TEST(PodStatus, FollowsPhaseNodeDeletionAndGates) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n1"));
  objects.pods.push_back(MakePod("ns", "running").RunningOn("n1"));
  objects.pods.push_back(MakePod("ns", "releasing").RunningOn("n1").Deleting());
  objects.pods.push_back(MakePod("ns", "bound").BoundTo("n1"));
  objects.pods.push_back(MakePod("ns", "pending"));
  objects.pods.push_back(MakePod("ns", "pending-deleted").Deleting());
  PodObject gated = MakePod("ns", "gated");
  gated.scheduling_gated = true;
  objects.pods.push_back(gated);
  objects.pods.push_back(MakePod("ns", "done").Phase(PodPhase::kSucceeded));
  objects.pods.push_back(MakePod("ns", "failed").Phase(PodPhase::kFailed));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_EQ(PodByKey(s, "ns/running").status, PodStatus::kRunning);
  EXPECT_EQ(PodByKey(s, "ns/releasing").status, PodStatus::kReleasing);
  EXPECT_EQ(PodByKey(s, "ns/bound").status, PodStatus::kBound);
  EXPECT_EQ(PodByKey(s, "ns/pending").status, PodStatus::kPending);
  EXPECT_EQ(PodByKey(s, "ns/pending-deleted").status, PodStatus::kReleasing);
  EXPECT_EQ(PodByKey(s, "ns/gated").status, PodStatus::kGated);
  EXPECT_EQ(PodByKey(s, "ns/done").status, PodStatus::kSucceeded);
  EXPECT_EQ(PodByKey(s, "ns/failed").status, PodStatus::kFailed);
  // Running, releasing and bound pods hold resources on n1, sorted by key.
  const Node& n1 = s.nodes.front();
  ASSERT_EQ(n1.pods.size(), 3u);
  EXPECT_EQ(s.pods[static_cast<size_t>(n1.pods[0])].key, "ns/bound");
}

// KAI's pod_info.go, getTaskStatus: a Running pod being deleted is StuckInReleasing when
// time.Since(deletionTimestamp) > threshold; a Pending one being deleted is only ever Releasing.
TEST(PodStatus, StuckInReleasingIsARunningPodDeletedLongerThanTheThresholdAgo) {
  constexpr int64_t kDeleted = 1'000'000;
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n1").Gpus(2));
  objects.pods.push_back(MakePod("ns", "running-deleted").RunningOn("n1").DeletedAt(kDeleted));
  objects.pods.push_back(MakePod("ns", "pending-deleted").BoundTo("n1").DeletedAt(kDeleted - 3600));
  objects.pods.push_back(MakePod("ns", "no-timestamp").RunningOn("n1").Deleting());
  objects.pods.push_back(MakePod("ns", "running").RunningOn("n1"));
  const Snapshot s = Build(objects).snapshot;
  const std::chrono::seconds threshold(120);
  const auto at = [](int64_t t) { return Time(std::chrono::seconds(t)); };
  const Pod& deleted = PodByKey(s, "ns/running-deleted");
  EXPECT_EQ(deleted.status, PodStatus::kReleasing);
  EXPECT_EQ(deleted.releasing_since, at(kDeleted));
  EXPECT_FALSE(IsStuckInReleasing(deleted, at(kDeleted + 119), threshold));
  EXPECT_FALSE(IsStuckInReleasing(deleted, at(kDeleted + 120), threshold));  // not more than
  EXPECT_TRUE(IsStuckInReleasing(deleted, at(kDeleted + 121), threshold));
  const Pod& pending = PodByKey(s, "ns/pending-deleted");
  EXPECT_EQ(pending.status, PodStatus::kReleasing);
  EXPECT_FALSE(IsStuckInReleasing(pending, at(kDeleted + 3600), threshold));
  EXPECT_FALSE(IsStuckInReleasing(PodByKey(s, "ns/no-timestamp"), at(kDeleted), threshold));
  EXPECT_FALSE(IsStuckInReleasing(PodByKey(s, "ns/running"), at(kDeleted + 3600), threshold));
}

// KAI's pod_info.go, updateLegacyMigResourceRequestFromAnnotations: an integer-valued
// nvidia.com/mig-* annotation replaces the pod's GPU request with that many instances.
TEST(LegacyMig, AnAnnotationReplacesTheGpuRequestAndMarksTheNodeItRunsOn) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("mig").Scalar("nvidia.com/mig-3g.40gb", 2));
  objects.nodes.push_back(MakeNode("other").Scalar("nvidia.com/mig-3g.40gb", 2));
  objects.pods.push_back(
      MakePod("ns", "legacy").Gpus(1).Annotation("nvidia.com/mig-3g.40gb", "2").RunningOn("mig"));
  objects.pods.push_back(MakePod("ns", "fraction-too")
                             .Annotation("gpu-fraction", "7")
                             .Annotation("nvidia.com/mig-3g.40gb", "1"));
  objects.pods.push_back(MakePod("ns", "not-a-number").Annotation("nvidia.com/mig-3g.40gb", "two"));
  objects.pods.push_back(MakePod("ns", "two")
                             .Annotation("nvidia.com/mig-1g.10gb", "1")
                             .Annotation("nvidia.com/mig-3g.40gb", "1"));
  objects.pods.push_back(MakePod("ns", "negative").Annotation("nvidia.com/mig-1g.10gb", "-3"));
  const SnapshotBuild build = Build(objects);
  const Snapshot& s = build.snapshot;
  const Pod& legacy = PodByKey(s, "ns/legacy");
  EXPECT_TRUE(legacy.gpu.legacy_mig);
  EXPECT_EQ(legacy.gpu.kind, GpuSharing::Kind::kMig);
  EXPECT_EQ(legacy.gpu.mig_gpu_units_milli, Quantity(6000));  // 2 x 3g
  EXPECT_EQ(legacy.request.gpu_milli, Quantity(0));           // nvidia.com/gpu: 1 replaced
  EXPECT_EQ(legacy.request.Scalar("nvidia.com/mig-3g.40gb"), Quantity(2000));
  EXPECT_EQ(s.nodes[0].legacy_mig_pods, 1);
  EXPECT_EQ(s.nodes[0].used.Scalar("nvidia.com/mig-3g.40gb"), Quantity(2000));
  EXPECT_EQ(s.nodes[1].legacy_mig_pods, 0);
  // The annotation wins over a GPU annotation, bad or not (KAI reads it last).
  const Pod& fraction = PodByKey(s, "ns/fraction-too");
  EXPECT_TRUE(fraction.gpu.legacy_mig);
  EXPECT_TRUE(fraction.problems.empty());
  // Not an integer: KAI skips the annotation; a warning names it.
  EXPECT_FALSE(PodByKey(s, "ns/not-a-number").gpu.legacy_mig);
  EXPECT_EQ(PodByKey(s, "ns/not-a-number").gpu.kind, GpuSharing::Kind::kNone);
  // Two: the first by name is read (KAI's map order would pick either).
  const Pod& two = PodByKey(s, "ns/two");
  EXPECT_EQ(two.gpu.mig_gpu_units_milli, Quantity(1000));
  EXPECT_EQ(two.request.Scalar("nvidia.com/mig-3g.40gb"), Quantity(0));
  // Negative counts hold nothing (KAI's vector would give the node instances back).
  const Pod& negative = PodByKey(s, "ns/negative");
  EXPECT_TRUE(negative.gpu.legacy_mig);
  EXPECT_EQ(negative.request.Scalar("nvidia.com/mig-1g.10gb"), Quantity(0));
  std::vector<std::string> warnings;
  for (const Diagnostic& d : build.diagnostics)
    warnings.push_back(d.object + " " + d.field + ": " + d.message);
  EXPECT_TRUE(AnyContains(warnings,
                          "Pod ns/not-a-number metadata.annotations[nvidia.com/mig-3g.40gb]: "
                          "\"two\" is not an integer"));
  EXPECT_TRUE(AnyContains(
      warnings,
      "Pod ns/two metadata.annotations[nvidia.com/mig-3g.40gb]: a second legacy MIG annotation"));
  EXPECT_TRUE(AnyContains(warnings,
                          "Pod ns/negative metadata.annotations[nvidia.com/mig-1g.10gb]: \"-3\" is "
                          "out of range; read as 0"));
}

TEST(ImplicitGroup, QueueComesFromLabelThenProjectThenDefault) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("q1"));
  objects.pods.push_back(MakePod("ns", "a").Queue("q1"));
  objects.pods.push_back(MakePod("ns", "b").Label("project", "proj"));
  objects.pods.push_back(MakePod("ns", "c"));
  objects.pods.push_back(MakePod("ns", "other").Scheduler("default-scheduler"));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_EQ(JobByKey(s, "ns/pg-a").queue_name, "q1");
  EXPECT_NE(JobByKey(s, "ns/pg-a").queue, kNone);
  EXPECT_TRUE(JobByKey(s, "ns/pg-a").implicit);
  EXPECT_EQ(JobByKey(s, "ns/pg-b").queue_name, "proj");
  EXPECT_EQ(JobByKey(s, "ns/pg-c").queue_name, "default-queue");
  // Pods of other schedulers get no group at all.
  EXPECT_EQ(s.FindJob("ns/pg-other"), kNone);
  EXPECT_EQ(PodByKey(s, "ns/other").job, kNone);
}

TEST(ImplicitGroup, OwnedPodsCanWaitForThePodGrouper) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("default-queue"));
  PodObject worker = MakePod("ns", "worker-0");
  worker.meta.controller_kind = "PyTorchJob";
  objects.pods.push_back(worker);
  objects.pods.push_back(MakePod("ns", "bare"));
  SnapshotOptions options;
  // By default every pod of ours gets a group of one (offline files rarely carry PodGroups).
  options.now = Time(std::chrono::seconds(1'790'000'000));
  EXPECT_TRUE(
      JobByKey(BuildSnapshot(objects, options).snapshot, "ns/pg-worker-0").problems.empty());
  // Waiting for the pod grouper: the owned pod's group cannot be scheduled, and says why; a bare
  // pod is not held back.
  options.group_owned_pods_implicitly = false;
  const Snapshot s = BuildSnapshot(objects, options).snapshot;
  const Job& held = JobByKey(s, "ns/pg-worker-0");
  ASSERT_EQ(held.problems.size(), 1u);
  EXPECT_NE(held.problems[0].find("waiting for its PodGroup"), std::string::npos);
  EXPECT_NE(held.problems[0].find("PyTorchJob"), std::string::npos);
  EXPECT_TRUE(JobByKey(s, "ns/pg-bare").problems.empty());
}

TEST(ImplicitGroup, PriorityAndPreemptibility) {
  ClusterObjects objects;
  objects.priority_classes.push_back(testing::PriorityClass("inference", 125));
  objects.priority_classes.push_back(testing::PriorityClass("train", 50));
  objects.pods.push_back(MakePod("ns", "none"));
  objects.pods.push_back(MakePod("ns", "inf").PriorityClass("inference"));
  objects.pods.push_back(MakePod("ns", "forced")
                             .PriorityClass("inference")
                             .Label("kai.scheduler/preemptibility", "preemptible"));
  objects.pods.push_back(MakePod("ns", "missing").PriorityClass("nope"));
  const SnapshotBuild b = Build(objects);
  EXPECT_EQ(JobByKey(b.snapshot, "ns/pg-none").priority, 50);
  EXPECT_TRUE(JobByKey(b.snapshot, "ns/pg-none").preemptible);
  EXPECT_EQ(JobByKey(b.snapshot, "ns/pg-inf").priority, 125);
  EXPECT_FALSE(JobByKey(b.snapshot, "ns/pg-inf").preemptible);
  EXPECT_TRUE(JobByKey(b.snapshot, "ns/pg-forced").preemptible);
  EXPECT_EQ(JobByKey(b.snapshot, "ns/pg-missing").priority, 50);
  bool warned = false;
  for (const Diagnostic& d : b.diagnostics) {
    warned |= d.message.find("PriorityClass nope does not exist") != std::string::npos &&
              d.object == "Pod ns/missing";
  }
  EXPECT_TRUE(warned);
}

TEST(PodGroupResolution, GlobalDefaultClassAppliesWithoutAClass) {
  ClusterObjects objects;
  objects.priority_classes.push_back(testing::PriorityClass("cluster-default", 80, true));
  objects.queues.push_back(MakeQueue("q"));
  objects.pod_groups.push_back(MakeGroup("ns", "pg").Queue("q"));
  objects.pod_groups.push_back(
      MakeGroup("ns", "np").Queue("q").Preemptibility(Preemptibility::kNonPreemptible));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_EQ(JobByKey(s, "ns/pg").priority, 80);
  EXPECT_TRUE(JobByKey(s, "ns/pg").preemptible);
  EXPECT_FALSE(JobByKey(s, "ns/np").preemptible);  // explicit beats priority < 100
}

TEST(PodGroupResolution, PodsJoinTheirAnnotatedGroup) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("q"));
  objects.pod_groups.push_back(MakeGroup("ns", "train").Queue("q").MinMember(2));
  objects.pods.push_back(MakePod("ns", "w1").Group("train"));
  objects.pods.push_back(MakePod("ns", "w0").Group("train"));
  const Snapshot s = Build(objects).snapshot;
  const Job& job = JobByKey(s, "ns/train");
  ASSERT_EQ(job.pods.size(), 2u);
  EXPECT_EQ(s.pods[static_cast<size_t>(job.pods[0])].key, "ns/w0");
  ASSERT_EQ(job.sub_groups.size(), 1u);
  EXPECT_EQ(job.sub_groups[0].name, "default");
  EXPECT_EQ(job.sub_groups[0].min_member, 2);
  EXPECT_EQ(job.sub_groups[0].pods.size(), 2u);
}

TEST(PodGroupResolution, DuplicateGroupsAndCollidingImplicitNamesKeepEveryPodInItsJob) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("a"));
  objects.queues.push_back(MakeQueue("b"));
  // Two definitions of ns/gang: the first is used. An explicit group named pg-solo takes the
  // key the implicit group of pod "solo" would get, which then gets a suffix.
  objects.pod_groups.push_back(MakeGroup("ns", "gang").Queue("a").MinMember(2));
  objects.pod_groups.push_back(MakeGroup("ns", "gang").Queue("b").MinMember(5));
  objects.pod_groups.push_back(MakeGroup("ns", "pg-solo").Queue("b"));
  objects.pods.push_back(MakePod("ns", "solo").Queue("a"));
  objects.pods.push_back(MakePod("ns", "g-1").Group("gang"));
  objects.pods.push_back(MakePod("ns", "g-0").Group("gang"));
  objects.pods.push_back(MakePod("ns", "x").Group("pg-solo"));
  const SnapshotBuild b = Build(objects);
  const Snapshot& s = b.snapshot;
  ASSERT_EQ(s.jobs.size(), 3u);
  for (size_t j = 1; j < s.jobs.size(); ++j) EXPECT_LT(s.jobs[j - 1].key, s.jobs[j].key);
  const Job& gang = JobByKey(s, "ns/gang");
  EXPECT_EQ(gang.queue_name, "a");
  EXPECT_EQ(gang.min_member, 2);
  ASSERT_EQ(gang.pods.size(), 2u);
  EXPECT_EQ(s.pods[static_cast<size_t>(gang.pods[0])].key, "ns/g-0");
  EXPECT_EQ(s.pods[static_cast<size_t>(gang.pods[1])].key, "ns/g-1");
  EXPECT_EQ(PodByKey(s, "ns/solo").job, s.FindJob("ns/pg-solo-implicit"));
  EXPECT_TRUE(JobByKey(s, "ns/pg-solo-implicit").implicit);
  EXPECT_EQ(PodByKey(s, "ns/x").job, s.FindJob("ns/pg-solo"));
  EXPECT_FALSE(JobByKey(s, "ns/pg-solo").implicit);
  bool warned = false;
  for (const Diagnostic& d : b.diagnostics) {
    warned |= d.object == "PodGroup ns/gang" && d.message.find("duplicate") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST(PodGroupResolution, MissingQueueNonLeafQueueAndMissingGroupAreProblems) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("dept"));
  objects.queues.push_back(MakeQueue("proj").Parent("dept"));
  objects.pod_groups.push_back(MakeGroup("ns", "lost").Queue("nope"));
  objects.pod_groups.push_back(MakeGroup("ns", "high").Queue("dept"));
  objects.pods.push_back(MakePod("ns", "orphan").Group("ghost").Queue("proj"));
  const SnapshotBuild b = Build(objects);
  const Job& lost = JobByKey(b.snapshot, "ns/lost");
  EXPECT_EQ(lost.queue, kNone);
  EXPECT_TRUE(AnyContains(lost.problems, "QueueDoesNotExist: queue nope does not exist"));
  EXPECT_TRUE(AnyContains(JobByKey(b.snapshot, "ns/high").problems, "not a leaf queue"));
  const Job& ghost = JobByKey(b.snapshot, "ns/ghost");
  EXPECT_TRUE(AnyContains(ghost.problems, "PodGroup ns/ghost"));
  EXPECT_EQ(PodByKey(b.snapshot, "ns/orphan").job, b.snapshot.FindJob("ns/ghost"));
  bool named_field = false;
  for (const Diagnostic& d : b.diagnostics) {
    named_field |= d.object == "PodGroup ns/lost" && d.field == "spec.queue";
  }
  EXPECT_TRUE(named_field);
}

TEST(SubGroups, LeavesCarryMinimumsAndPodsMapByLabel) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("q"));
  objects.pod_groups.push_back(MakeGroup("ns", "pg")
                                   .Queue("q")
                                   .MinMember(99)  // ignored when subgroups exist
                                   .SubGroup("Workers", 1)
                                   .SubGroup("decode", 2, "workers")
                                   .SubGroup("prefill", 0, "WORKERS"));
  objects.pods.push_back(
      MakePod("ns", "d0").Group("pg").Label("kai.scheduler/subgroup-name", "decode"));
  objects.pods.push_back(
      MakePod("ns", "x").Group("pg").Label("kai.scheduler/subgroup-name", "workers"));
  const Snapshot s = Build(objects).snapshot;
  const Job& job = JobByKey(s, "ns/pg");
  EXPECT_TRUE(job.problems.empty());
  ASSERT_EQ(job.sub_groups.size(), 3u);
  EXPECT_FALSE(job.sub_groups[0].leaf);  // workers has children
  EXPECT_EQ(job.sub_groups[1].min_member, 2);
  EXPECT_EQ(job.sub_groups[2].min_member, 1);  // max(minMember, 1)
  EXPECT_EQ(job.sub_groups[1].pods.size(), 1u);
  // A pod pointing at a non-leaf subgroup cannot be scheduled.
  EXPECT_TRUE(AnyContains(PodByKey(s, "ns/x").problems, "no leaf subgroup \"workers\""));
}

TEST(SubGroups, UnknownParentAndDuplicatesAreProblems) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("q"));
  objects.pod_groups.push_back(
      MakeGroup("ns", "pg").Queue("q").SubGroup("a", 1).SubGroup("a", 1).SubGroup("b", 1, "zzz"));
  const Snapshot s = Build(objects).snapshot;
  const Job& job = JobByKey(s, "ns/pg");
  EXPECT_TRUE(AnyContains(job.problems, "duplicate subgroup name a"));
  EXPECT_TRUE(AnyContains(job.problems, "unknown parent zzz"));
}

TEST(QueueTree, DefaultsParentsAndChildren) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("proj-b").Parent("dept"));
  objects.queues.push_back(MakeQueue("dept").Priority(7));
  objects.queues.push_back(MakeQueue("proj-a").Parent("dept"));
  const Snapshot s = Build(objects).snapshot;
  const Queue& dept = QueueByName(s, "dept");
  EXPECT_EQ(dept.priority, 7);
  EXPECT_EQ(QueueByName(s, "proj-a").priority, 100);
  ASSERT_EQ(dept.children.size(), 2u);
  EXPECT_EQ(s.queues[static_cast<size_t>(dept.children[0])].name, "proj-a");
  EXPECT_EQ(s.RootQueues().size(), 1u);
}

TEST(QueueTree, MissingParentMakesTheSubtreeUnusable) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("proj").Parent("gone"));
  objects.queues.push_back(MakeQueue("team").Parent("proj"));
  const SnapshotBuild b = Build(objects);
  EXPECT_TRUE(
      AnyContains(QueueByName(b.snapshot, "proj").problems, "parent queue gone does not exist"));
  EXPECT_TRUE(AnyContains(QueueByName(b.snapshot, "team").problems, "ancestor queue proj"));
  EXPECT_FALSE(b.diagnostics.empty());
}

TEST(QueueTree, ParentCycleIsReported) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("a").Parent("b"));
  objects.queues.push_back(MakeQueue("b").Parent("a"));
  objects.queues.push_back(MakeQueue("c").Parent("a"));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_TRUE(AnyContains(QueueByName(s, "a").problems, "cycle"));
  EXPECT_TRUE(AnyContains(QueueByName(s, "b").problems, "cycle"));
  EXPECT_TRUE(AnyContains(QueueByName(s, "c").problems, "ancestor queue a"));
}

// KAI's scheduler reads a Queue without spec.resources as zeros and schedules it
// (queue_info.getQueueQuota); the queue keeps its warning and stays usable.
TEST(QueueTree, QueueWithoutResourcesIsUsableWithItsWarning) {
  ClusterObjects objects;
  objects.queues.push_back(MakeQueue("q").NoResources());
  const Snapshot s = Build(objects).snapshot;
  EXPECT_TRUE(QueueByName(s, "q").problems.empty());
  EXPECT_TRUE(AnyContains(QueueByName(s, "q").warnings, "spec.resources"));
  for (core::ShareResource r : core::kShareResources) {
    EXPECT_EQ(QueueByName(s, "q").resources[r].limit, core::Bound::Of(core::Quantity::Zero()));
  }
}

TEST(GpuSharingAnnotations, BadValuesMakeThePodUnschedulable) {
  ClusterObjects objects;
  for (const char* bad : {"abc", "1.7", "-0.5", "0", ""}) {
    objects.pods.push_back(MakePod("ns", std::string("f") + bad).Annotation("gpu-fraction", bad));
  }
  objects.pods.push_back(MakePod("ns", "mem").Annotation("gpu-memory", "2Gi"));
  objects.pods.push_back(MakePod("ns", "both").Annotation("gpu-fraction", "0.5").Gpus(1));
  objects.pods.push_back(MakePod("ns", "ok").Annotation("gpu-fraction", "0.25"));
  const SnapshotBuild b = Build(objects);
  EXPECT_TRUE(AnyContains(PodByKey(b.snapshot, "ns/fabc").problems,
                          "annotation gpu-fraction: \"abc\" is not a fraction in (0, 1]"));
  EXPECT_FALSE(PodByKey(b.snapshot, "ns/f1.7").problems.empty());
  EXPECT_FALSE(PodByKey(b.snapshot, "ns/f-0.5").problems.empty());
  EXPECT_FALSE(PodByKey(b.snapshot, "ns/f0").problems.empty());
  EXPECT_FALSE(PodByKey(b.snapshot, "ns/f").problems.empty());
  EXPECT_TRUE(AnyContains(PodByKey(b.snapshot, "ns/mem").problems, "gpu-memory"));
  EXPECT_TRUE(AnyContains(PodByKey(b.snapshot, "ns/both").problems, "cannot be combined"));
  const Pod& ok = PodByKey(b.snapshot, "ns/ok");
  EXPECT_TRUE(ok.problems.empty());
  EXPECT_EQ(ok.gpu.kind, GpuSharing::Kind::kFraction);
  EXPECT_EQ(ok.gpu.portion_milli, Quantity(250));
  // Each bad pod also produced a warning naming it.
  int warnings = 0;
  for (const Diagnostic& d : b.diagnostics) warnings += d.object.rfind("Pod ns/", 0) == 0;
  EXPECT_EQ(warnings, 7);
}

TEST(SharedGpus, RunningFractionsAreRebuiltFromGpuGroupLabels) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n1").Gpus(4).Label("nvidia.com/gpu.memory", "81920"));
  objects.pods.push_back(MakePod("ns", "f1")
                             .Annotation("gpu-fraction", "0.5")
                             .Label("runai-gpu-group", "g1")
                             .RunningOn("n1"));
  objects.pods.push_back(MakePod("ns", "f2")
                             .Annotation("gpu-fraction", "0.25")
                             .Label("runai-gpu-group", "g1")
                             .RunningOn("n1"));
  objects.pods.push_back(MakePod("ns", "m1")
                             .Annotation("gpu-memory", "20000")
                             .Label("runai-gpu-group", "g2")
                             .RunningOn("n1"));
  objects.pods.push_back(MakePod("ns", "whole").Gpus(1).RunningOn("n1"));
  const Snapshot s = Build(objects).snapshot;
  const core::Node& n1 = s.nodes.front();
  ASSERT_EQ(n1.gpus.size(), 4u);
  EXPECT_EQ(n1.gpus[0].state, GpuDevice::State::kShared);
  EXPECT_EQ(n1.gpus[0].group, "g1");
  EXPECT_EQ(n1.gpus[0].used_portion_milli, Quantity(750));
  EXPECT_EQ(n1.gpus[0].holders.size(), 2u);
  // 20000 MiB of 81900 MiB (label floored to 100s): ceil(24.42) = 25 hundredths.
  EXPECT_EQ(n1.gpus[1].group, "g2");
  EXPECT_EQ(n1.gpus[1].used_portion_milli, Quantity(250));
  EXPECT_EQ(n1.gpus[2].state, GpuDevice::State::kWhole);
  EXPECT_EQ(n1.gpus[3].state, GpuDevice::State::kIdle);
  EXPECT_EQ(n1.gpu_memory_mib, 81900);
}

TEST(SharedGpus, AReservationPodHoldsItsGroupsDeviceNotAWholeGpuMore) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n1").Gpus(2).Label("nvidia.com/gpu.memory", "81920"));
  // The reservation pod of g1 (1 GPU from the device plugin) and the fractional pod it serves.
  objects.pods.push_back(MakePod("quotient-resource-reservation", "gpu-reservation-n1-a")
                             .Scheduler("default-scheduler")
                             .Gpus(1)
                             .Label("app", "quotient-gpu-reservation")
                             .Label("runai-gpu-group", "g1")
                             .RunningOn("n1"));
  objects.pods.push_back(MakePod("ns", "f1")
                             .Annotation("gpu-fraction", "0.5")
                             .Label("runai-gpu-group", "g1")
                             .RunningOn("n1"));
  // A reservation whose last fractional pod has gone (not yet collected): its device stays
  // shared, so a whole-GPU pod cannot be given a device the device plugin has handed out.
  objects.pods.push_back(MakePod("kai-resource-reservation", "gpu-reservation-n1-b")
                             .Scheduler("default-scheduler")
                             .Gpus(1)
                             .Label("app", "kai-resource-reservation")
                             .Label("runai-gpu-group", "g2")
                             .RunningOn("n1"));
  const Snapshot s = Build(objects).snapshot;
  const core::Node& n1 = s.nodes.front();
  ASSERT_EQ(n1.gpus.size(), 2u);  // no device beyond the node's two
  EXPECT_EQ(n1.gpus[0].state, GpuDevice::State::kShared);
  EXPECT_EQ(n1.gpus[0].group, "g1");
  EXPECT_EQ(n1.gpus[0].used_portion_milli, Quantity(500));
  EXPECT_EQ(n1.gpus[1].state, GpuDevice::State::kShared);
  EXPECT_EQ(n1.gpus[1].group, "g2");
  EXPECT_EQ(n1.gpus[1].used_portion_milli, Quantity(0));
  EXPECT_EQ(n1.used.gpu_milli, Quantity(0));  // the reservations add no whole GPU
}

TEST(NodeHealth, FaultConditionsAndRemediationTaintsTakeTheNodeOutWhateverIsTolerated) {
  ClusterObjects objects;
  NodeObject faulty = MakeNode("faulty").Gpus(8);
  faulty.fault_conditions = {{"GpuXidFatal", "Xid79"}};
  // A GPU named unhealthy for the same reason does not confine a fault the agent scopes to the
  // node (Xid79 is not in its confined list).
  faulty.unhealthy_gpus = {{"GPU-1", 1, "Xid79"}};
  faulty.confined_reasons = {"RowRemapPending"};
  objects.nodes.push_back(faulty);
  NodeObject remediated = MakeNode("remediated").Gpus(8);
  remediated.taints.push_back({"quotient.dev/unhealthy", "GpuXidFatal", "NoSchedule"});
  objects.nodes.push_back(remediated);
  NodeObject repair = MakeNode("repair").Gpus(8);
  repair.taints.push_back({"quotient.dev/hardware-repair", "Xid79", "NoSchedule"});
  objects.nodes.push_back(repair);
  objects.nodes.push_back(MakeNode("healthy").Gpus(8));
  const Snapshot s = Build(objects).snapshot;
  const auto node = [&](std::string_view name) -> const core::Node& {
    return s.nodes[static_cast<size_t>(s.FindNode(name))];
  };
  EXPECT_FALSE(node("faulty").usable);
  EXPECT_EQ(node("faulty").unusable_reason, "node has condition GpuXidFatal (Xid79)");
  EXPECT_FALSE(node("remediated").usable);
  EXPECT_EQ(node("remediated").unusable_reason,
            "node is being remediated (taint quotient.dev/unhealthy=GpuXidFatal)");
  EXPECT_FALSE(node("repair").usable);
  EXPECT_NE(node("repair").unusable_reason.find("hardware repair"), std::string::npos);
  EXPECT_TRUE(node("healthy").usable);
  // Fair share counts only the healthy node's 8 GPUs.
  EXPECT_EQ(ClusterCapacity(s)[ShareResource::kGpu], Quantity(8000));
}

TEST(NodeHealth, AFaultConfinedToTheGpusTheAgentNamesLeavesTheRestOfTheNodeInUse) {
  ClusterObjects objects;
  NodeObject n = MakeNode("n").Gpus(8);
  n.capacity_gpu_milli = Quantity(8000);
  n.fault_conditions = {{"GpuMemoryDegraded", "RowRemapPending"}, {"GpuXidFatal", "Xid119"}};
  n.unhealthy_gpus = {{"GPU-2", 2, "RowRemapPending"}, {"GPU-6", 6, "Xid13,Xid119"}};
  n.confined_reasons = {"RowRemapPending", "Xid119"};
  objects.nodes.push_back(n);
  const Snapshot s = Build(objects).snapshot;
  const core::Node& node = s.nodes.front();
  EXPECT_TRUE(node.usable) << node.unusable_reason;
  EXPECT_EQ(node.gpus.size(), 6u);
  EXPECT_EQ(ClusterCapacity(s)[ShareResource::kGpu], Quantity(6000));
}

TEST(NodeHealth, AnUnhealthyGpuLeavesPlacementAndCapacityButNotTwice) {
  ClusterObjects objects;
  // The agent reports GPU 3 unhealthy; the device plugin has not noticed (allocatable 8 of 8).
  NodeObject agent_only = MakeNode("a").Gpus(8);
  agent_only.capacity_gpu_milli = Quantity(8000);
  agent_only.unhealthy_gpus = {{"GPU-3", 3, "RowRemapPending"}};
  objects.nodes.push_back(agent_only);
  // Both saw it: the device plugin took it out of allocatable (7 of 8) already.
  NodeObject both = MakeNode("b").Gpus(7);
  both.capacity_gpu_milli = Quantity(8000);
  both.unhealthy_gpus = {{"GPU-5", 5, "Xid48"}};
  objects.nodes.push_back(both);
  const Snapshot s = Build(objects).snapshot;
  const core::Node& a = s.nodes[static_cast<size_t>(s.FindNode("a"))];
  const core::Node& b = s.nodes[static_cast<size_t>(s.FindNode("b"))];
  EXPECT_TRUE(a.usable);
  EXPECT_EQ(a.gpus.size(), 7u);
  EXPECT_EQ(a.allocatable.gpu_milli, Quantity(7000));
  EXPECT_EQ(a.unhealthy_gpus, 1);
  EXPECT_EQ(b.gpus.size(), 7u);  // not 6
  EXPECT_EQ(ClusterCapacity(s)[ShareResource::kGpu], Quantity(14000));
}

TEST(NodeLabels, GpuMemoryInBytesMigAndPool) {
  ClusterObjects objects;
  objects.nodes.push_back(
      MakeNode("bytes").Gpus(1).Label("nvidia.com/gpu.memory", "85899345920"));  // 80 GiB in bytes
  objects.nodes.push_back(MakeNode("mig").Scalar("nvidia.com/mig-1g.10gb", 7));
  objects.nodes.push_back(MakeNode("pool").Label("kai.scheduler/node-pool", "a100"));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_EQ(s.nodes[0].gpu_memory_mib, 81900);  // 81920 MiB floored to 100s
  EXPECT_TRUE(s.nodes[1].mig_enabled);
  EXPECT_EQ(s.nodes[2].node_pool, "a100");
  EXPECT_EQ(s.min_node_gpu_memory_mib, 81900);
}

// KAI's node_info.go, IsMIGEnabled (the label when present, as strconv.ParseBool reads it; else
// any allocatable MIG profile) and GetMigStrategy (single or mixed, on a MIG-enabled node).
TEST(NodeLabels, MigEnabledAndStrategyAsKaiReadsThem) {
  const std::string enabled = "node-role.kubernetes.io/mig-enabled";
  const std::string strategy = "nvidia.com/mig.strategy";
  ClusterObjects objects;
  objects.nodes.push_back(
      MakeNode("a-profiles").Scalar("nvidia.com/mig-1g.10gb", 7).Label(strategy, "mixed"));
  objects.nodes.push_back(
      MakeNode("b-label-false").Scalar("nvidia.com/mig-1g.10gb", 7).Label(enabled, "false"));
  objects.nodes.push_back(
      MakeNode("c-label-True").Gpus(8).Label(enabled, "True").Label(strategy, "single"));
  objects.nodes.push_back(
      MakeNode("d-label-yes").Gpus(8).Label(enabled, "yes").Label(strategy, "single"));
  objects.nodes.push_back(MakeNode("e-plain").Gpus(8).Label(strategy, "mixed"));
  objects.nodes.push_back(
      MakeNode("f-bad-strategy").Gpus(8).Label(enabled, "1").Label(strategy, "all"));
  const SnapshotBuild build = Build(objects);
  const Snapshot& s = build.snapshot;
  EXPECT_TRUE(s.nodes[0].mig_enabled);
  EXPECT_EQ(s.nodes[0].mig_strategy, MigStrategy::kMixed);
  EXPECT_FALSE(s.nodes[1].mig_enabled);
  EXPECT_TRUE(s.nodes[2].mig_enabled);
  EXPECT_EQ(s.nodes[2].mig_strategy, MigStrategy::kSingle);
  EXPECT_FALSE(s.nodes[3].mig_enabled);
  EXPECT_EQ(s.nodes[3].mig_strategy, MigStrategy::kUnset);  // not MIG-enabled: no strategy
  EXPECT_FALSE(s.nodes[4].mig_enabled);
  EXPECT_EQ(s.nodes[4].mig_strategy, MigStrategy::kUnset);
  EXPECT_TRUE(s.nodes[5].mig_enabled);
  EXPECT_EQ(s.nodes[5].mig_strategy, MigStrategy::kUnset);
  std::vector<std::string> warnings;
  for (const Diagnostic& d : build.diagnostics)
    warnings.push_back(d.object + " " + d.field + ": " + d.message);
  EXPECT_TRUE(AnyContains(warnings,
                          "Node d-label-yes metadata.labels[node-role.kubernetes.io/mig-enabled]: "
                          "\"yes\" is not a boolean"));
  EXPECT_TRUE(AnyContains(warnings,
                          "Node f-bad-strategy metadata.labels[nvidia.com/mig.strategy]: \"all\" "
                          "is not single, mixed or none"));
}

TEST(Capacity, CountsUsableNodesMinusForeignPodsAndMigUnits) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("a").Gpus(8).Cpu("64").Memory("100G"));
  objects.nodes.push_back(MakeNode("b").Gpus(8).NotReady());
  objects.nodes.push_back(MakeNode("c").Gpus(8).Cordoned());
  objects.nodes.push_back(
      MakeNode("mig").Cpu("8").Memory("10G").Scalar("nvidia.com/mig-3g.40gb", 2));
  objects.pods.push_back(MakePod("kube", "foreign")
                             .Scheduler("default-scheduler")
                             .Gpus(2)
                             .Cpu("4")
                             .Memory("1G")
                             .RunningOn("a"));
  objects.pods.push_back(MakePod("kai", "reservation")
                             .Scheduler("default-scheduler")
                             .Gpus(1)
                             .Label("app", "kai-resource-reservation")
                             .RunningOn("a"));
  objects.pods.push_back(MakePod("ns", "ours").Gpus(1).RunningOn("a"));
  const Snapshot s = Build(objects).snapshot;
  const ShareVector total = ClusterCapacity(s);
  EXPECT_EQ(total[ShareResource::kGpu], Quantity(8000 - 2000 + 6000));  // 2 x 3g on "mig"
  EXPECT_EQ(total[ShareResource::kCpu], Quantity(64000 - 4000 + 8000));
  EXPECT_EQ(total[ShareResource::kMemory], Quantity(110'000'000'000 - 1'000'000'000));
}

TEST(Accounting, GpuQuotaOfEachRequestForm) {
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n").Gpus(8).Label("nvidia.com/gpu.memory", "40000"));
  objects.nodes.push_back(MakeNode("m").Gpus(8).Label("nvidia.com/gpu.memory", "80000"));
  objects.nodes.push_back(MakeNode("k").Gpus(2).Label("nvidia.com/gpu.memory", "40960"));
  objects.pods.push_back(MakePod("ns", "whole").Gpus(2));
  objects.pods.push_back(MakePod("ns", "frac")
                             .Annotation("gpu-fraction", "0.5")
                             .Annotation("gpu-fraction-num-devices", "3"));
  objects.pods.push_back(MakePod("ns", "mem").Annotation("gpu-memory", "10000"));
  objects.pods.push_back(MakePod("ns", "mem-big").Annotation("gpu-memory", "50000"));
  objects.pods.push_back(MakePod("ns", "mem-all")
                             .Annotation("gpu-memory", "40960")
                             .Label("runai-gpu-group", "h")
                             .RunningOn("k"));
  objects.pods.push_back(MakePod("ns", "mem-run")
                             .Annotation("gpu-memory", "10000")
                             .Label("runai-gpu-group", "g")
                             .RunningOn("m"));
  const Snapshot s = Build(objects).snapshot;
  const auto gpu = [&](std::string_view key) {
    const core::Pod& p = PodByKey(s, key);
    const core::Node* node = p.node == kNone ? nullptr : &s.nodes[static_cast<size_t>(p.node)];
    return QuotaOf(p, node, s)[ShareResource::kGpu];
  };
  EXPECT_EQ(gpu("ns/whole"), Quantity(2000));
  EXPECT_EQ(gpu("ns/frac"), Quantity(1500));
  // Pending: 10000 / smallest GPU memory 40000 = 0.25.
  EXPECT_EQ(gpu("ns/mem"), Quantity(250));
  // KAI's GpuMemoryAsGpuFraction is not capped at one device: 50000 / 40000 = 1.25.
  EXPECT_EQ(gpu("ns/mem-big"), Quantity(1250));
  // Running on an 80000 MiB GPU: ceil(12.5) hundredths = 0.13.
  EXPECT_EQ(gpu("ns/mem-run"), Quantity(130));
  // KAI floors the label to 40900 MiB and does not cap the share at one device:
  // ceil(40960 / 40900 x 100) hundredths = 1.01.
  EXPECT_EQ(gpu("ns/mem-all"), Quantity(1010));

  // The capacity checks size a pending request by the largest GPU memory (KAI's
  // capacity_policy.getRequiredQuota): 10000 / 80000 = 0.125 -> 125 milli; 50000 / 80000.
  EXPECT_EQ(s.max_node_gpu_memory_mib, 80000);
  EXPECT_EQ(CapacityCheckQuotaOf(PodByKey(s, "ns/mem"), s)[ShareResource::kGpu], Quantity(125));
  EXPECT_EQ(CapacityCheckQuotaOf(PodByKey(s, "ns/mem-big"), s)[ShareResource::kGpu], Quantity(625));
  // Everything else counts as in QuotaOf.
  EXPECT_EQ(CapacityCheckQuotaOf(PodByKey(s, "ns/whole"), s)[ShareResource::kGpu], Quantity(2000));
  EXPECT_EQ(CapacityCheckQuotaOf(PodByKey(s, "ns/frac"), s)[ShareResource::kGpu], Quantity(1500));
}

TEST(Accounting, GpuMemoryWithoutLabelledNodesCountsNoGpu) {
  // No node labels nvidia.com/gpu.memory: KAI's Min/MaxNodeGPUMemoryMiB are nil and a pending
  // gpu-memory request counts no GPU, in fair share and in the capacity checks alike.
  ClusterObjects objects;
  objects.nodes.push_back(MakeNode("n").Gpus(8));
  objects.pods.push_back(MakePod("ns", "mem").Annotation("gpu-memory", "10000").Cpu("2"));
  const Snapshot s = Build(objects).snapshot;
  EXPECT_FALSE(s.min_node_gpu_memory_mib.has_value());
  EXPECT_FALSE(s.max_node_gpu_memory_mib.has_value());
  const core::Pod& p = PodByKey(s, "ns/mem");
  EXPECT_EQ(QuotaOf(p, nullptr, s)[ShareResource::kGpu], Quantity::Zero());
  EXPECT_EQ(CapacityCheckQuotaOf(p, s)[ShareResource::kGpu], Quantity::Zero());
  EXPECT_EQ(CapacityCheckQuotaOf(p, s)[ShareResource::kCpu], Quantity(2000));
}

}  // namespace
}  // namespace quotient::core
