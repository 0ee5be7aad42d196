// The dashboard's state: built from a real cycle (BuildSnapshot + scheduler::RunCycle) on a small
// cluster, so the numbers it shows are the cycle's, and checked against what the setup implies.
#include "service/dashboard_state.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "builders/objects.h"
#include "core/snapshot_builder.h"
#include "scheduler/run.h"

namespace quotient::service {
namespace {

using nlohmann::json;
using testing::MakeGroup;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeQueue;

const std::chrono::system_clock::time_point kCycleStart{
    std::chrono::milliseconds(1'700'000'000'250)};

// n1: 8 GPUs holding a 2-GPU pod of team-a and one shared GPU (group g1: 0.5 of team-a and 0.25
// of team-b); n2: 4 GPUs of which the agent reports GPU 3 unhealthy, and one GPU held by another
// scheduler's pod; n3: cordoned. Queues dept -> team-a (6 GPUs deserved), team-b (2). Pending: a
// 1-GPU pod of team-a (fits) and a gang of two 8-GPU pods of team-b (fits nowhere).
core::ClusterObjects Cluster() {
  core::ClusterObjects o;
  o.nodes.push_back(MakeNode("n1").Gpus(8).Cpu("64").Memory("512Gi"));
  core::NodeObject n2 = MakeNode("n2").Gpus(4).Cpu("64").Memory("512Gi");
  n2.unhealthy_gpus = {{"GPU-n2-3", 3, "Xid79"}};
  o.nodes.push_back(n2);
  o.nodes.push_back(MakeNode("n3").Gpus(8).Cpu("64").Memory("512Gi").Cordoned());
  o.queues.push_back(MakeQueue("dept").Gpu(8, -1, 1));
  o.queues.push_back(MakeQueue("team-a").Parent("dept").Gpu(6, -1, 1));
  o.queues.push_back(MakeQueue("team-b").Parent("dept").Gpu(2, 4, 1));
  o.pods.push_back(MakePod("ns", "a-whole").Queue("team-a").Gpus(2).RunningOn("n1"));
  o.pods.push_back(MakePod("ns", "a-half")
                       .Queue("team-a")
                       .Annotation("gpu-fraction", "0.5")
                       .Label("runai-gpu-group", "g1")
                       .RunningOn("n1"));
  o.pods.push_back(MakePod("ns", "b-quarter")
                       .Queue("team-b")
                       .Annotation("gpu-fraction", "0.25")
                       .Label("runai-gpu-group", "g1")
                       .RunningOn("n1"));
  o.pods.push_back(
      MakePod("kube", "foreign").Scheduler("default-scheduler").Gpus(1).RunningOn("n2"));
  o.pods.push_back(MakePod("ns", "a-new").Queue("team-a").Gpus(1));
  o.pod_groups.push_back(MakeGroup("ns", "big").Queue("team-b").MinMember(2));
  for (const char* name : {"big-0", "big-1"}) {
    o.pods.push_back(MakePod("ns", name).Queue("team-b").Group("big").Gpus(8));
  }
  return o;
}

struct Cycle {
  core::SnapshotBuild build;
  scheduler::RunReport report;
};

Cycle RunOnce(const core::ClusterObjects& objects) {
  Cycle c{core::BuildSnapshot(objects, {}), {}};
  c.report = scheduler::RunCycle(c.build, scheduler::RunOptions{});
  return c;
}

DashboardInput InputFor(const Cycle& c) {
  DashboardInput input;
  input.snapshot = &c.build.snapshot;
  input.report = &c.report;
  input.unhealthy_gpus["n2"] = {{"GPU-n2-3", 3, "Xid79"}};
  input.computed_at = kCycleStart;
  input.cycle_duration = std::chrono::milliseconds(12);
  input.cycle = 7;
  input.scheduler_name = "quotient";
  input.schedule_period = std::chrono::milliseconds(1000);
  return input;
}

const json& Named(const json& list, const std::string& key, const std::string& name) {
  for (const json& item : list) {
    if (item.at(key) == name) return item;
  }
  static const json none;
  ADD_FAILURE() << "no " << key << " " << name << " in " << list.dump();
  return none;
}

const scheduler::QueueReport& QueueReportOf(const scheduler::RunReport& r, const std::string& q) {
  for (const scheduler::QueueReport& queue : r.queues) {
    if (queue.name == q) return queue;
  }
  static const scheduler::QueueReport none;
  ADD_FAILURE() << "no queue " << q;
  return none;
}

TEST(DashboardState, TheQueueTreeCarriesEachQueuesQuotaShareAndUse) {
  const Cycle c = RunOnce(Cluster());
  const json state = BuildDashboardState(InputFor(c));
  EXPECT_EQ(state["computed_at_ms"], 1'700'000'000'250);
  EXPECT_EQ(state["cycle"], 7);
  EXPECT_EQ(state["cycle_ms"], 12);
  EXPECT_EQ(state["schedule_period_ms"], 1000);
  const json& queues = state["queues"];
  ASSERT_EQ(queues.size(), 3u);
  const json& dept = Named(queues, "name", "dept");
  EXPECT_EQ(dept["parent"], "");
  EXPECT_EQ(dept["children"], json::array({"team-a", "team-b"}));
  const json& a = Named(queues, "name", "team-a")["resources"]["gpu"];
  const json& b = Named(queues, "name", "team-b")["resources"]["gpu"];
  EXPECT_EQ(Named(queues, "name", "team-a")["parent"], "dept");
  EXPECT_EQ(a["deserved"], 6000);
  EXPECT_EQ(a["limit"], nullptr);  // -1: unlimited
  EXPECT_EQ(b["deserved"], 2000);
  EXPECT_EQ(b["limit"], 4000);
  // team-a holds 2 GPUs, half a GPU and the GPU its pending pod gets this cycle; team-b a
  // quarter, and asks 16 more for its gang.
  EXPECT_EQ(a["allocated"], 2000 + 500 + 1000);
  EXPECT_EQ(b["allocated"], 250);
  EXPECT_EQ(b["requested"], 250 + 2 * 8000);
  // The fair share is the cycle's, for every resource.
  for (const char* queue : {"team-a", "team-b", "dept"}) {
    const scheduler::QueueReport& r = QueueReportOf(c.report, queue);
    const json& resources = Named(queues, "name", queue)["resources"];
    EXPECT_EQ(resources["gpu"]["fair_share"], r.fair_share[core::ShareResource::kGpu].value());
    EXPECT_EQ(resources["cpu"]["fair_share"], r.fair_share[core::ShareResource::kCpu].value());
    EXPECT_EQ(resources["memory"]["allocated"], r.allocated[core::ShareResource::kMemory].value());
  }
}

TEST(DashboardState, ASharedGpuShowsBothOwnersAndTheCyclesBindIsPlaced) {
  const Cycle c = RunOnce(Cluster());
  const json state = BuildDashboardState(InputFor(c));
  const json& n1 = Named(state["nodes"], "name", "n1");
  ASSERT_EQ(n1["gpus"].size(), 8u);
  int whole_a = 0;
  const json* shared = nullptr;
  for (const json& gpu : n1["gpus"]) {
    if (gpu.contains("group")) shared = &gpu;
    for (const json& h : gpu.value("holders", json::array())) {
      if (h["pod"] == "ns/a-whole" && h["milli"] == 1000) ++whole_a;
    }
  }
  EXPECT_EQ(whole_a, 2);
  ASSERT_NE(shared, nullptr) << n1.dump();
  EXPECT_EQ((*shared)["group"], "g1");
  ASSERT_EQ((*shared)["holders"].size(), 2u) << shared->dump();
  const json& half = Named((*shared)["holders"], "pod", "ns/a-half");
  const json& quarter = Named((*shared)["holders"], "pod", "ns/b-quarter");
  EXPECT_EQ(half["queue"], "team-a");
  EXPECT_EQ(half["milli"], 500);
  EXPECT_EQ(quarter["queue"], "team-b");
  EXPECT_EQ(quarter["milli"], 250);

  // The pending 1-GPU pod is bound this cycle: it shows on the node the decision names, on one
  // GPU, marked as placed now.
  std::string bound_to;
  for (const framework::Decision& d : c.report.cycles.at(0).decisions) {
    if (d.pod == "ns/a-new" && d.kind == framework::DecisionKind::kBind) bound_to = d.node;
  }
  ASSERT_FALSE(bound_to.empty());
  int placed = 0;
  for (const json& node : state["nodes"]) {
    for (const json& gpu : node["gpus"]) {
      for (const json& h : gpu.value("holders", json::array())) {
        if (h["pod"] != "ns/a-new") continue;
        ++placed;
        EXPECT_EQ(node["name"], bound_to);
        EXPECT_EQ(h["milli"], 1000);
        EXPECT_EQ(h["bound_now"], true);
      }
    }
  }
  EXPECT_EQ(placed, 1);
}

TEST(DashboardState, UnhealthyGpusUnusableNodesAndOtherSchedulersPodsAreMarked) {
  const Cycle c = RunOnce(Cluster());
  const json state = BuildDashboardState(InputFor(c));
  // n2: 4 GPUs, one reported unhealthy: three in the map, the fourth listed with its reason.
  const json& n2 = Named(state["nodes"], "name", "n2");
  EXPECT_TRUE(n2["usable"]);
  EXPECT_EQ(n2["gpus"].size(), 3u);
  ASSERT_EQ(n2["unhealthy"].size(), 1u);
  EXPECT_EQ(n2["unhealthy"][0]["index"], 3);
  EXPECT_EQ(n2["unhealthy"][0]["uuid"], "GPU-n2-3");
  EXPECT_EQ(n2["unhealthy"][0]["reason"], "Xid79");
  int foreign = 0;
  for (const json& gpu : n2["gpus"]) {
    for (const json& h : gpu.value("holders", json::array())) {
      if (h["pod"] != "kube/foreign") continue;
      ++foreign;
      EXPECT_EQ(h["queue"], "");
      EXPECT_EQ(h["scheduler"], "default-scheduler");
    }
  }
  EXPECT_EQ(foreign, 1);
  // n3 is cordoned: unusable, and says why.
  const json& n3 = Named(state["nodes"], "name", "n3");
  EXPECT_FALSE(n3["usable"]);
  EXPECT_NE(n3["unusable_reason"].get<std::string>().find("cordoned"), std::string::npos)
      << n3.dump();
  EXPECT_FALSE(Named(state["nodes"], "name", "n1").contains("unusable_reason"));

  // Without the agent's list (the cache lost the annotation) the snapshot's count still shows.
  DashboardInput input = InputFor(c);
  input.unhealthy_gpus.clear();
  const json without = BuildDashboardState(input);
  const json& n2_again = Named(without["nodes"], "name", "n2");
  ASSERT_EQ(n2_again["unhealthy"].size(), 1u);
  EXPECT_EQ(n2_again["unhealthy"][0]["index"], -1);
}

TEST(DashboardState, PendingGangsCarryTheirQueueMinimumAndTheCyclesReasons) {
  const Cycle c = RunOnce(Cluster());
  const json state = BuildDashboardState(InputFor(c));
  std::vector<std::string> reasons;
  for (const scheduler::PodGroupReport& g : c.report.pod_groups) {
    if (g.pod_group == "ns/big") reasons = g.reasons;
  }
  ASSERT_FALSE(reasons.empty());
  EXPECT_EQ(state["pending_total"], 1);  // a-new was bound
  ASSERT_EQ(state["pending"].size(), 1u);
  const json& big = state["pending"][0];
  EXPECT_EQ(big["pod_group"], "ns/big");
  EXPECT_EQ(big["queue"], "team-b");
  EXPECT_EQ(big["min_member"], 2);
  EXPECT_EQ(big["pending_pods"], 2);
  EXPECT_EQ(big["implicit"], false);
  EXPECT_EQ(big["requested"]["gpu"], 16000);
  EXPECT_EQ(big["reasons"], json(reasons));

  // The list is capped; the total still counts every pending group.
  DashboardInput capped = InputFor(c);
  capped.max_pending = 0;
  const json few = BuildDashboardState(capped);
  EXPECT_EQ(few["pending"].size(), 0u);
  EXPECT_EQ(few["pending_total"], 1);
  EXPECT_EQ(few["pending_pods_total"], 2);
}

TEST(DashboardState, PodsTheCycleEvictsAreMarkedOnTheirGpus) {
  Cycle c = RunOnce(Cluster());
  framework::Decision evict;
  evict.action = "reclaim";
  evict.kind = framework::DecisionKind::kEvict;
  evict.pod = "ns/a-whole";
  evict.node = "n1";
  c.report.cycles.at(0).decisions.push_back(evict);
  const json state = BuildDashboardState(InputFor(c));
  int evicting = 0;
  for (const json& gpu : Named(state["nodes"], "name", "n1")["gpus"]) {
    for (const json& h : gpu.value("holders", json::array())) {
      EXPECT_EQ(h.value("evicting", false), h["pod"] == "ns/a-whole") << h.dump();
      if (h.value("evicting", false)) ++evicting;
    }
  }
  EXPECT_EQ(evicting, 2);  // its two GPUs
}

EvictionRecord Eviction(int i) {
  return {kCycleStart + std::chrono::seconds(i), "reclaim", "ns/p-" + std::to_string(i),
          "ns/pg-" + std::to_string(i),          "team-a",  "n1",
          "reason " + std::to_string(i)};
}

TEST(EvictionLog, KeepsTheLastCapacityNewestFirstAndCountsAll) {
  EvictionLog log(3);
  for (int i = 0; i < 5; ++i) log.Add(Eviction(i));
  ASSERT_EQ(log.Recent().size(), 3u);
  EXPECT_EQ(log.Recent()[0].pod, "ns/p-4");
  EXPECT_EQ(log.Recent()[1].pod, "ns/p-3");
  EXPECT_EQ(log.Recent()[2].pod, "ns/p-2");
  EXPECT_EQ(log.total(), 5);
  EvictionLog none(0);
  none.Add(Eviction(0));
  EXPECT_TRUE(none.Recent().empty());
  EXPECT_EQ(none.total(), 1);
}

TEST(DashboardDocument, SaysWhenItWasServedWhoLeadsTheLastCycleAndTheEvictions) {
  EvictionLog log(2);
  log.Add(Eviction(1));
  log.Add(Eviction(2));
  log.Add(Eviction(3));
  DocumentFacts facts;
  facts.served_at = kCycleStart + std::chrono::milliseconds(1500);
  const json before = DashboardDocument(log, facts);
  EXPECT_EQ(before["version"], 1);
  EXPECT_FALSE(before.contains("state"));  // Dashboard adds it
  EXPECT_EQ(before["leading"], false);
  EXPECT_EQ(before["served_at_ms"], 1'700'000'001'750);
  EXPECT_EQ(before["last_cycle"], 0);
  EXPECT_EQ(before["last_cycle_at_ms"], nullptr);  // no cycle yet
  EXPECT_EQ(before["state_pending"], false);
  EXPECT_EQ(before["evictions_total"], 3);
  EXPECT_EQ(before["eviction_capacity"], 2);
  ASSERT_EQ(before["evictions"].size(), 2u);
  const json& newest = before["evictions"][0];
  EXPECT_EQ(newest["pod"], "ns/p-3");
  EXPECT_EQ(newest["time_ms"], 1'700'000'003'250);
  EXPECT_EQ(newest["action"], "reclaim");
  EXPECT_EQ(newest["queue"], "team-a");
  EXPECT_EQ(newest["pod_group"], "ns/pg-3");
  EXPECT_EQ(newest["node"], "n1");
  EXPECT_EQ(newest["reason"], "reason 3");
  EXPECT_EQ(before["evictions"][1]["pod"], "ns/p-2");

  facts.leading = true;
  facts.last_cycle = 9;
  facts.last_cycle_at = kCycleStart;
  facts.schedule_period = std::chrono::milliseconds(5000);
  facts.state_pending = true;
  const json after = DashboardDocument(log, facts);
  EXPECT_EQ(after["leading"], true);
  EXPECT_EQ(after["last_cycle"], 9);
  EXPECT_EQ(after["last_cycle_at_ms"], 1'700'000'000'250);
  EXPECT_EQ(after["schedule_period_ms"], 5000);
  EXPECT_EQ(after["state_pending"], true);
}

}  // namespace
}  // namespace quotient::service
