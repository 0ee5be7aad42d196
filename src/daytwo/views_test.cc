#include "daytwo/views.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/loader.h"

namespace quotient::daytwo {
namespace {

// dept (no quota of its own) with team-a and team-b, 4 GPUs deserved each. team-b runs one pod of
// 6 GPUs on n1 (8 GPUs); n2 (8 GPUs) is cordoned; team-a waits with a 10-GPU pod no node holds.
constexpr char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Node
metadata: {name: n2}
spec: {unschedulable: true}
status:
  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: dept}
spec:
  resources:
    gpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: team-a}
spec:
  parentQueue: dept
  resources:
    gpu: {quota: 4, limit: -1, overQuotaWeight: 2}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: team-b}
spec:
  parentQueue: dept
  resources:
    gpu: {quota: 4, limit: -1, overQuotaWeight: 1}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: b-0, namespace: t, labels: {kai.scheduler/queue: team-b}}
spec:
  schedulerName: quotient
  nodeName: n1
  containers: [{name: main, resources: {limits: {nvidia.com/gpu: "6"}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: a-0, namespace: t, labels: {kai.scheduler/queue: team-a}}
spec:
  schedulerName: quotient
  containers: [{name: main, resources: {limits: {nvidia.com/gpu: "10"}}}]
status: {phase: Pending}
)";

struct Fixture {
  core::ClusterObjects objects;
  scheduler::RunReport report;
  explicit Fixture(bool actions, const std::string& text = kCluster) {
    kube::LoadResult loaded;
    kube::DecodeManifestText(text, "test", loaded);
    EXPECT_FALSE(loaded.HasErrors());
    objects = loaded.objects;
    scheduler::RunOptions options;
    if (!actions) options.config.actions.clear();
    options.now = core::Time(std::chrono::seconds(1'800'000'000));
    report = scheduler::Run(loaded.objects, options);
  }
};

TEST(QueueTree, ParentsComeBeforeTheirChildrenInNameOrder) {
  Fixture f(false);
  const std::vector<QueueRow> rows = QueueTree(f.report);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "dept");
  EXPECT_EQ(rows[0].depth, 0);
  EXPECT_EQ(rows[1].name, "team-a");
  EXPECT_EQ(rows[1].depth, 1);
  EXPECT_EQ(rows[2].name, "team-b");
}

TEST(QueuesDocument, ShowsQuotaWeightUsageAndWhoBorrowsFromWhom) {
  Fixture f(false);
  const Document doc = QueuesDocument(f.report, f.objects);
  const Document& b = doc["queues"][2];
  EXPECT_EQ(b["name"], "team-b");
  EXPECT_EQ(b["gpu"]["deserved"], "4");
  EXPECT_TRUE(b["gpu"]["limit"].is_null()) << "-1 is unlimited";
  EXPECT_EQ(b["gpu"]["allocated"], "6");
  EXPECT_EQ(b["gpu"]["borrowing"], "2") << "6 held, 4 deserved";
  EXPECT_EQ(doc["queues"][1]["gpu"]["overQuotaWeight"], "2");
  EXPECT_EQ(doc["queues"][1]["gpu"]["requested"], "10") << "team-a's pending pod";
  ASSERT_EQ(doc["borrowing"].size(), 1u);
  EXPECT_EQ(doc["borrowing"][0],
            "under dept: team-b borrows 2 GPUs beyond its deserved 4, from team-a leaves 4 of its "
            "deserved 4 GPUs unused");
}

TEST(WhyDocument, APodNoNodeCanHoldSaysWhatWouldFitItAndWhereItComesClosest) {
  Fixture f(true);
  Fixture current(false);
  Result<Document> why =
      WhyDocument("t/a-0", f.report, current.report, f.objects, "kai.scheduler/node-pool");
  ASSERT_TRUE(why.ok()) << why.message();
  EXPECT_EQ((*why)["status"], "Pending");
  EXPECT_FALSE((*why)["reasons"].empty());
  EXPECT_EQ((*why)["gpusPerPod"], "10");
  ASSERT_EQ((*why)["closestNodes"].size(), 1u) << "n2 is cordoned: not a candidate";
  EXPECT_EQ((*why)["closestNodes"][0]["node"], "n1");
  EXPECT_EQ((*why)["closestNodes"][0]["freeGpus"], "2") << "8 GPUs, 6 held by team-b";
  bool fits = false;
  for (const Document& c : (*why)["whatWouldChangeIt"]) {
    if (c.get<std::string>().starts_with(
            "fits if 10 GPUs free on one node; the most free now: n1 2")) {
      fits = true;
    }
  }
  EXPECT_TRUE(fits) << why->dump(2);
  EXPECT_EQ((*why)["queue"]["name"], "team-a");
  EXPECT_EQ((*why)["queue"]["allocatedGpus"], "0");
}

TEST(WhyDocument, APodThatFitsANodeButNotItsQueuesLimitSaysSo) {
  // team-a may hold 1 GPU at most; its pod asks for 2, which n1 has free.
  std::string text = kCluster;
  text.replace(text.find("gpu: {quota: 4, limit: -1, overQuotaWeight: 2}"),
               std::string("gpu: {quota: 4, limit: -1, overQuotaWeight: 2}").size(),
               "gpu: {quota: 4, limit: 1, overQuotaWeight: 2}");
  text.replace(text.find(R"(nvidia.com/gpu: "10")"), std::string(R"(nvidia.com/gpu: "10")").size(),
               R"(nvidia.com/gpu: "2")");
  Fixture next(true, text);
  Fixture current(false, text);
  Result<Document> why =
      WhyDocument("t/a-0", next.report, current.report, next.objects, "kai.scheduler/node-pool");
  ASSERT_TRUE(why.ok()) << why.message();
  EXPECT_EQ((*why)["status"], "Pending");
  std::vector<std::string> changes;
  for (const Document& c : (*why)["whatWouldChangeIt"]) changes.push_back(c.get<std::string>());
  EXPECT_NE(std::find(changes.begin(), changes.end(),
                      "queue team-a holds 0 of its limit of 1 GPUs: raise "
                      "spec.resources.gpu.limit or wait for its pods to end"),
            changes.end())
      << why->dump(2);
  EXPECT_NE(std::find(changes.begin(), changes.end(),
                      "placement is not what holds it: 1 node(s) have 2 GPUs free now (n1: 2)"),
            changes.end())
      << why->dump(2);
}

TEST(WhyDocument, AnUnknownTargetIsAnErrorNamingIt) {
  Fixture f(true);
  Result<Document> why =
      WhyDocument("t/nope", f.report, f.report, f.objects, "kai.scheduler/node-pool");
  ASSERT_FALSE(why.ok());
  EXPECT_NE(why.message().find("no pod or PodGroup t/nope"), std::string::npos);
}

TEST(TopDocument, CountsGpusPerNodeByQueueAndMarksTheCordonedNode) {
  Fixture f(false);
  const Document top = TopDocument(f.report, f.objects, "kai.scheduler/node-pool");
  ASSERT_EQ(top["nodes"].size(), 2u);
  const Document& n1 = top["nodes"][0];
  EXPECT_EQ(n1["name"], "n1");
  EXPECT_EQ(n1["used"], "6");
  EXPECT_EQ(n1["free"], "2");
  EXPECT_EQ(n1["status"], "ok");
  EXPECT_EQ(n1["byQueue"]["team-b"], "6");
  EXPECT_EQ(top["nodes"][1]["status"], "cordoned");
  EXPECT_EQ(top["nodes"][1]["used"], "0");
  const Document& team_a = top["queues"][1];
  EXPECT_EQ(team_a["name"], "team-a");
  EXPECT_EQ(team_a["pendingPods"], 1);
  EXPECT_EQ(top["queues"][2]["runningPods"], 1);
}

TEST(WhatIf, ANewNodeShowsInTheDecisionsAndTheQueuesAllocation) {
  Fixture before(true);  // the next cycle without the change
  kube::LoadResult changes;
  kube::DecodeManifestText(R"(
apiVersion: v1
kind: Node
metadata: {name: n3}
status:
  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "16", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
)",
                           "changes", changes);
  ASSERT_FALSE(changes.HasErrors());
  core::ClusterObjects changed = before.objects;
  Overlay(changed, changes.objects);
  ASSERT_EQ(changed.nodes.size(), 3u) << "a new node is added";
  Overlay(changed, changes.objects);
  ASSERT_EQ(changed.nodes.size(), 3u) << "the same node again replaces it";
  scheduler::RunOptions options;
  options.now = core::Time(std::chrono::seconds(1'800'000'000));
  const scheduler::RunReport after = scheduler::Run(changed, options);
  const Document doc = WhatIfDocument(before.report, after);
  bool bound = false;
  for (const Document& d : doc["decisions"]) {
    if (d["pod"] == "t/a-0" && d["kind"] == "bind" && d["node"] == "n3") {
      bound = true;
      EXPECT_EQ(d["withoutTheChange"], false) << "no node holds 10 GPUs without n3";
    }
  }
  EXPECT_TRUE(bound) << doc.dump(2);
  EXPECT_EQ(doc["queues"][1]["allocatedGpusBefore"], "0");
  EXPECT_EQ(doc["queues"][1]["allocatedGpusAfter"], "10");
  EXPECT_TRUE(doc["stillPending"].empty());
}

}  // namespace
}  // namespace quotient::daytwo
