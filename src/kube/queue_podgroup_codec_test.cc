// Queue, PodGroup and PriorityClass decoding.
#include <gtest/gtest.h>

#include "kube/loader.h"

namespace quotient::kube {
namespace {

using core::Bound;
using core::Quantity;
using core::ShareResource;
using namespace std::chrono_literals;

LoadResult Decode(std::string_view text, std::string_view source = "queues.yaml") {
  LoadResult out;
  DecodeManifestText(text, source, out);
  return out;
}

TEST(QueueCodec, ConvertsKaiUnitsExactly) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: team-a, namespace: ignored}
spec:
  displayName: Team A
  parentQueue: research
  priority: 200
  preemptMinRuntime: 10m
  reclaimMinRuntime: 1h30m
  resources:
    gpu: {quota: 2.5, limit: -1, overQuotaWeight: 2}
    cpu: {quota: 8000, limit: 16000.7, overQuotaWeight: 0.5}
    memory: {quota: 1.5, limit: -1.0}
)");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.queues.size(), 1u);
  const core::QueueObject& q = r.objects.queues[0];
  EXPECT_EQ(q.meta.Key(), "team-a");  // cluster-scoped
  EXPECT_EQ(q.display_name, "Team A");
  EXPECT_EQ(q.parent, "research");
  EXPECT_EQ(q.priority, 200);
  EXPECT_EQ(q.preempt_min_runtime, 600s);
  EXPECT_EQ(q.reclaim_min_runtime, 5400s);
  EXPECT_TRUE(q.warnings.empty());
  const core::QueueResource& gpu = q.resources[ShareResource::kGpu];
  EXPECT_EQ(gpu.quota, Bound::Of(Quantity(2500)));
  EXPECT_TRUE(gpu.limit.is_unlimited());
  EXPECT_EQ(gpu.over_quota_weight_milli, Quantity(2000));
  const core::QueueResource& cpu = q.resources[ShareResource::kCpu];
  EXPECT_EQ(cpu.quota, Bound::Of(Quantity(8000)));   // already millicores
  EXPECT_EQ(cpu.limit, Bound::Of(Quantity(16000)));  // rounds down
  EXPECT_EQ(cpu.over_quota_weight_milli, Quantity(500));
  const core::QueueResource& memory = q.resources[ShareResource::kMemory];
  EXPECT_EQ(memory.quota, Bound::Of(Quantity(1500000)));  // 1.5 MB in bytes
  EXPECT_TRUE(memory.limit.is_unlimited());
  EXPECT_EQ(memory.over_quota_weight_milli, Quantity(0));  // unset
}

TEST(QueueCodec, UnsetFieldsStayZero) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: bare}
spec: {}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: empty-resources}
spec:
  resources:
    memory: {quota: 1e3}
)");
  // The queue without spec.resources is read as KAI's scheduler reads it, with a warning.
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].object, "Queue bare");
  EXPECT_EQ(r.diagnostics[0].field, "spec.resources");
  ASSERT_EQ(r.objects.queues.size(), 2u);
  const core::QueueObject& bare = r.objects.queues[0];
  EXPECT_TRUE(bare.problems.empty());
  ASSERT_EQ(bare.warnings.size(), 1u);
  EXPECT_EQ(bare.warnings[0].rfind("spec.resources: missing", 0), 0u) << bare.warnings[0];
  EXPECT_FALSE(bare.priority.has_value());
  EXPECT_FALSE(bare.preempt_min_runtime.has_value());
  for (ShareResource res : core::kShareResources) {
    EXPECT_EQ(bare.resources[res].quota, Bound::Of(Quantity(0)));
    EXPECT_EQ(bare.resources[res].limit, Bound::Of(Quantity(0)));
    EXPECT_EQ(bare.resources[res].over_quota_weight_milli, Quantity(0));
  }
  const core::QueueObject& partial = r.objects.queues[1];
  EXPECT_TRUE(partial.warnings.empty());
  EXPECT_EQ(partial.resources[ShareResource::kMemory].quota,
            Bound::Of(Quantity(1000000000)));  // 1e3 MB
  EXPECT_EQ(partial.resources[ShareResource::kGpu].limit, Bound::Of(Quantity(0)));
}

TEST(QueueCodec, BadAmountsAndDurationsAreProblems) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: bad}
spec:
  preemptMinRuntime: ten minutes
  reclaimMinRuntime: -5m
  resources:
    gpu: {limit: "4"}
    memory: {quota: 0x10}
)");
  ASSERT_EQ(r.objects.queues.size(), 1u);
  const core::QueueObject& q = r.objects.queues[0];
  ASSERT_EQ(q.problems.size(), 4u);
  EXPECT_EQ(q.problems[0].rfind("spec.resources.gpu.limit: expected a number, got string", 0), 0u)
      << q.problems[0];
  EXPECT_EQ(q.problems[1].rfind("spec.resources.memory.quota: not a number", 0), 0u)
      << q.problems[1];
  EXPECT_EQ(q.problems[2].rfind("spec.preemptMinRuntime: not a duration", 0), 0u) << q.problems[2];
  EXPECT_EQ(q.problems[3].rfind("spec.reclaimMinRuntime: negative duration", 0), 0u)
      << q.problems[3];
  EXPECT_FALSE(q.preempt_min_runtime.has_value());
  ASSERT_EQ(r.diagnostics.size(), 4u);
  EXPECT_EQ(r.diagnostics[0].severity, core::Diagnostic::Severity::kWarning);
  EXPECT_EQ(r.diagnostics[0].source, "queues.yaml");
  EXPECT_EQ(r.diagnostics[0].object, "Queue bad");
  EXPECT_EQ(r.diagnostics[0].field, "spec.resources.gpu.limit");
  EXPECT_EQ(r.diagnostics[2].field, "spec.preemptMinRuntime");
}

// KAI's Queue CRD admits any number and KAI's scheduler computes with it (resource_division.go,
// proportion.go): negative weights, quotas and limits other than -1 are kept, with a warning
// each; a negative memory amount is raised to -1, unlimited, as KAI's math.Max(-1, x*10^6) does.
TEST(QueueCodec, NegativeAmountsAndWeightsAreKeptAsKaiKeepsThem) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: odd}
spec:
  resources:
    gpu: {quota: -2, limit: -3.5, overQuotaWeight: -1}
    cpu: {quota: -1, limit: -1000, overQuotaWeight: -0.5}
    memory: {quota: -5, limit: -1, overQuotaWeight: 1}
)");
  ASSERT_EQ(r.objects.queues.size(), 1u);
  const core::QueueObject& q = r.objects.queues[0];
  EXPECT_TRUE(q.problems.empty());
  const core::QueueResource& gpu = q.resources[ShareResource::kGpu];
  EXPECT_EQ(gpu.quota, Bound::Of(Quantity(-2000)));
  EXPECT_EQ(gpu.limit, Bound::Of(Quantity(-3500)));
  EXPECT_EQ(gpu.over_quota_weight_milli, Quantity(-1000));
  const core::QueueResource& cpu = q.resources[ShareResource::kCpu];
  EXPECT_TRUE(cpu.quota.is_unlimited());
  EXPECT_EQ(cpu.limit, Bound::Of(Quantity(-1000)));
  EXPECT_EQ(cpu.over_quota_weight_milli, Quantity(-500));
  const core::QueueResource& memory = q.resources[ShareResource::kMemory];
  EXPECT_TRUE(memory.quota.is_unlimited());
  EXPECT_TRUE(memory.limit.is_unlimited());
  // gpu quota, gpu limit, gpu weight, cpu limit, cpu weight, memory quota.
  ASSERT_EQ(q.warnings.size(), 6u);
  EXPECT_EQ(q.warnings[0].rfind("spec.resources.gpu.quota: negative amount -2", 0), 0u)
      << q.warnings[0];
  EXPECT_EQ(q.warnings[2].rfind("spec.resources.gpu.overQuotaWeight: negative weight -1", 0), 0u)
      << q.warnings[2];
  EXPECT_NE(q.warnings[5].find("read as unlimited"), std::string::npos) << q.warnings[5];
  ASSERT_EQ(r.diagnostics.size(), 6u);
  EXPECT_EQ(r.diagnostics[0].field, "spec.resources.gpu.quota");
}

// KAI v0.17's PodGroup timing fields: both Go durations; a negative staleness grace period means
// "never evict" (stalegangeviction.go), so it is kept, as is a non-positive preemption delay
// (which KAI reads as no delay: job_info.go, PreemptionDelayEnd).
TEST(PodGroupCodec, ReadsPreemptionDelayAndStalenessGracePeriod) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg-1, namespace: team-a}
spec: {queue: q, preemptionDelay: 10m, stalenessGracePeriod: -1s}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg-2, namespace: team-a}
spec: {queue: q, preemptionDelay: soon}
)");
  ASSERT_EQ(r.objects.pod_groups.size(), 2u);
  const core::PodGroupObject& pg = r.objects.pod_groups[0];
  EXPECT_TRUE(pg.problems.empty());
  EXPECT_EQ(pg.preemption_delay, std::chrono::seconds(600));
  EXPECT_EQ(pg.staleness_grace_period, std::chrono::seconds(-1));
  const core::PodGroupObject& bad = r.objects.pod_groups[1];
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_EQ(bad.problems[0].rfind("spec.preemptionDelay: not a duration", 0), 0u)
      << bad.problems[0];
  EXPECT_FALSE(bad.preemption_delay.has_value());
}

TEST(PodGroupCodec, ReadsSpecWithSubGroups) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg-1, namespace: team-a}
spec:
  queue: team-a
  priorityClassName: train
  preemptibility: non-preemptible
  minMember: 4
  markUnschedulable: false
  schedulingBackoff: 1
  subGroups:
  - name: workers
    minMember: 3
    parent: root
  - name: root
)");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.pod_groups.size(), 1u);
  const core::PodGroupObject& pg = r.objects.pod_groups[0];
  EXPECT_EQ(pg.meta.Key(), "team-a/pg-1");
  EXPECT_EQ(pg.queue, "team-a");
  EXPECT_EQ(pg.priority_class_name, "train");
  EXPECT_EQ(pg.preemptibility, core::Preemptibility::kNonPreemptible);
  EXPECT_EQ(pg.min_member, 4);
  EXPECT_FALSE(pg.mark_unschedulable);
  EXPECT_EQ(pg.scheduling_backoff, 1);
  ASSERT_EQ(pg.sub_groups.size(), 2u);
  EXPECT_EQ(pg.sub_groups[0].name, "workers");
  EXPECT_EQ(pg.sub_groups[0].min_member, 3);
  EXPECT_EQ(pg.sub_groups[0].parent, "root");
  EXPECT_EQ(pg.sub_groups[1].min_member, 1);
  EXPECT_FALSE(pg.sub_groups[1].parent.has_value());
}

TEST(PodGroupCodec, DefaultsFromJson) {
  LoadResult r = Decode(R"({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    "metadata": {"name": "pg-2"}, "spec": {"queue": "q", "preemptibility": "preemptible"}})");
  EXPECT_TRUE(r.diagnostics.empty());
  ASSERT_EQ(r.objects.pod_groups.size(), 1u);
  const core::PodGroupObject& pg = r.objects.pod_groups[0];
  EXPECT_EQ(pg.meta.namespace_name, "default");
  EXPECT_EQ(pg.preemptibility, core::Preemptibility::kPreemptible);
  EXPECT_EQ(pg.min_member, 1);
  EXPECT_TRUE(pg.mark_unschedulable);
  EXPECT_EQ(pg.scheduling_backoff, -1);
}

TEST(PodGroupCodec, BadPreemptibilityAndMinMemberAreProblems) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg-3, namespace: ns}
spec: {preemptibility: sometimes, minMember: -1, subGroups: [{minMember: 2}]}
)");
  ASSERT_EQ(r.objects.pod_groups.size(), 1u);
  const core::PodGroupObject& pg = r.objects.pod_groups[0];
  EXPECT_EQ(pg.preemptibility, core::Preemptibility::kUnset);
  EXPECT_EQ(pg.min_member, 1);
  ASSERT_EQ(pg.problems.size(), 3u);
  EXPECT_EQ(pg.problems[0],
            "spec.preemptibility: unknown preemptibility \"sometimes\" (expected preemptible or "
            "non-preemptible)");
  EXPECT_EQ(pg.problems[1].rfind("spec.minMember: out of range", 0), 0u) << pg.problems[1];
  EXPECT_EQ(pg.problems[2], "spec.subGroups[0].name: missing subgroup name");
  EXPECT_EQ(r.diagnostics.at(0).object, "PodGroup ns/pg-3");
}

TEST(PriorityClassCodec, ReadsValueAndGlobalDefault) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: train}
value: 1000000
globalDefault: true
description: training jobs
preemptionPolicy: PreemptLowerPriority
---
{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": -5}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: huge}
value: 3000000000
)");
  ASSERT_EQ(r.objects.priority_classes.size(), 3u);
  EXPECT_EQ(r.objects.priority_classes[0].meta.Key(), "train");
  EXPECT_EQ(r.objects.priority_classes[0].value, 1000000);
  EXPECT_TRUE(r.objects.priority_classes[0].global_default);
  EXPECT_EQ(r.objects.priority_classes[1].value, -5);
  EXPECT_FALSE(r.objects.priority_classes[1].global_default);
  ASSERT_EQ(r.objects.priority_classes[2].problems.size(), 1u);
  EXPECT_EQ(r.objects.priority_classes[2].problems[0].rfind("value: out of range", 0), 0u);
}

}  // namespace
}  // namespace quotient::kube

namespace quotient::kube {
namespace {

TEST(PodDisruptionBudgetCodec, ReadsSelectorAndAllowedDisruptions) {
  LoadResult r = Decode(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: team-a}
spec:
  minAvailable: 2
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
status: {disruptionsAllowed: 1, currentHealthy: 3}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: fresh, namespace: team-a}
spec: {maxUnavailable: 1}
)");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.pod_disruption_budgets.size(), 2u);
  const core::PodDisruptionBudgetObject& web = r.objects.pod_disruption_budgets[0];
  EXPECT_EQ(web.meta.Key(), "team-a/web");
  ASSERT_TRUE(web.selector.has_value());
  EXPECT_EQ(web.selector->match_labels.at("app"), "web");
  ASSERT_EQ(web.selector->match_expressions.size(), 1u);
  EXPECT_EQ(web.disruptions_allowed, 1);
  // No selector selects no pod; no status (the disruption controller has not seen it yet)
  // allows no disruption, as the Eviction API would answer.
  const core::PodDisruptionBudgetObject& fresh = r.objects.pod_disruption_budgets[1];
  EXPECT_FALSE(fresh.selector.has_value());
  EXPECT_EQ(fresh.disruptions_allowed, 0);
}

TEST(PodDisruptionBudgetCodec, BadSelectorProtectsTheWholeNamespace) {
  LoadResult r = Decode(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: odd, namespace: team-a}
spec:
  selector:
    matchExpressions: [{key: tier, operator: Near, values: [front]}]
status: {disruptionsAllowed: -3}
)");
  ASSERT_EQ(r.objects.pod_disruption_budgets.size(), 1u);
  const core::PodDisruptionBudgetObject& odd = r.objects.pod_disruption_budgets[0];
  ASSERT_TRUE(odd.selector.has_value());
  EXPECT_TRUE(odd.selector->match_labels.empty());
  EXPECT_TRUE(odd.selector->match_expressions.empty());
  EXPECT_EQ(odd.disruptions_allowed, 0);
  ASSERT_EQ(odd.problems.size(), 2u);
  EXPECT_NE(odd.problems[0].find("spec.selector.matchExpressions[0].operator"), std::string::npos)
      << odd.problems[0];
  EXPECT_NE(odd.problems[1].find("status.disruptionsAllowed"), std::string::npos)
      << odd.problems[1];
}

}  // namespace
}  // namespace quotient::kube
