// `quotient scheduler` end to end on the real API server: the binary runs as a process against
// the harness (fake 8-GPU nodes kept Ready by the harness's node simulator); pods of its scheduler
// name get bound and start running; a gang that cannot fit stays pending; pods of other schedulers
// are left alone.
#include <signal.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Nodes;
using kubeclient::resources::Pods;

TEST(SchedulerE2ETest, BindsPodsOfItsNameKeepsAnOversizedGangPendingAndLeavesOthersAlone) {
  TwoNodeCluster cluster("e2e", {{"e2e-team", 16}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-e2e";

  SchedulerProcess process(scheduler);
  // Four single-GPU pods and one 8-GPU pod: 12 of 16 GPUs.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("one-" + std::to_string(i), scheduler, "e2e-team", 1))
            .ok());
  }
  ASSERT_TRUE(admin->Create(Pods(), ns, GpuPod("eight", scheduler, "e2e-team", 8)).ok());
  // A pod of another scheduler: never touched.
  ASSERT_TRUE(admin->Create(Pods(), ns, GpuPod("foreign", "someone-else", "e2e-team", 1)).ok());

  bool all_bound = WaitFor(
      [&] {
        for (const char* p : {"one-0", "one-1", "one-2", "one-3", "eight"}) {
          if (NodeOf(*admin, ns, p).empty()) return false;
        }
        return true;
      },
      std::chrono::seconds(60));
  ASSERT_TRUE(all_bound) << Harness().LogTail();
  // The 8-GPU pod has a node to itself; the node simulator runs what was bound.
  std::string eight_node = NodeOf(*admin, ns, "eight");
  for (int i = 0; i < 4; ++i) EXPECT_NE(NodeOf(*admin, ns, "one-" + std::to_string(i)), eight_node);
  EXPECT_TRUE(WaitFor(
      [&] { return JsonField(admin->Get(Pods(), ns, "eight")->json, "status.phase") == "Running"; },
      std::chrono::seconds(30)));

  // A gang of 4 one-GPU pods needs 4 GPUs; 4 are free. A second gang of 4 finds none left.
  nlohmann::json group = {{"apiVersion", "scheduling.run.ai/v2alpha2"},
                          {"kind", "PodGroup"},
                          {"metadata", {{"name", "gang-a"}}},
                          {"spec", {{"queue", "e2e-team"}, {"minMember", 4}}}};
  ASSERT_TRUE(admin->Create(kubeclient::resources::PodGroups(), ns, group.dump()).ok());
  group["metadata"]["name"] = "gang-b";
  ASSERT_TRUE(admin->Create(kubeclient::resources::PodGroups(), ns, group.dump()).ok());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             GpuPod("a-" + std::to_string(i), scheduler, "e2e-team", 1, "gang-a"))
                    .ok());
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        for (int i = 0; i < 4; ++i) {
          if (NodeOf(*admin, ns, "a-" + std::to_string(i)).empty()) return false;
        }
        return true;
      },
      std::chrono::seconds(60)));
  // The queue's status shows what it holds: 4 + 8 + 4 GPUs.
  std::string queue_status;
  EXPECT_TRUE(WaitFor(
      [&] {
        auto q = admin->Get(kubeclient::resources::Queues(), "", "e2e-team");
        if (!q.ok()) return false;
        nlohmann::json status = nlohmann::json::parse(q->json)["status"];
        queue_status = status.dump();
        return status.contains("allocated") && status["allocated"]["nvidia.com/gpu"] == "16";
      },
      std::chrono::seconds(20)))
      << queue_status;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             GpuPod("b-" + std::to_string(i), scheduler, "e2e-team", 1, "gang-b"))
                    .ok());
  }
  // Several cycles pass (the period is 1 s); none of gang b may be bound — not even part of it.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(NodeOf(*admin, ns, "b-" + std::to_string(i)), "") << i;
  EXPECT_EQ(NodeOf(*admin, ns, "foreign"), "");
  // ... and the pods say why, where `kubectl describe` shows it: PodScheduled=False,
  // Unschedulable, and the pending reason (every GPU of both nodes is taken).
  std::string condition;
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json pod = nlohmann::json::parse(admin->Get(Pods(), ns, "b-0")->json);
        for (const auto& c : pod["status"]["conditions"]) {
          if (c["type"] == "PodScheduled") condition = c.dump();
        }
        // Until the scheduler has seen all four pods the reason is NotReady (3 of 4 exist); a
        // slow (sanitizer) run can still show that one: wait for the reason about GPUs.
        return condition.find(R"("reason":"Unschedulable")") != std::string::npos &&
               condition.find("GPUs") != std::string::npos;
      },
      std::chrono::seconds(20)))
      << condition;
  EXPECT_NE(condition.find(R"("status":"False")"), std::string::npos) << condition;
  EXPECT_NE(condition.find("GPUs"), std::string::npos) << condition;
  std::printf("pending reason of a gang that does not fit: %s\n", condition.c_str());
  // Bound pods got a Scheduled event.
  auto events = admin->List(kubeclient::resources::Events(), ns, {});
  ASSERT_TRUE(events.ok());
  bool scheduled_event = false;
  for (const auto& e : events->items) {
    if (JsonField(e.json, "reason") == "Scheduled" &&
        JsonField(e.json, "regarding.name") == "eight") {
      scheduled_event = true;
    }
  }
  EXPECT_TRUE(scheduled_event);

  // PodGroup status in KAI's format: the gang that runs holds 4 GPUs and has no condition; the
  // one that does not fit says why, for its node pool.
  nlohmann::json gang_a = nlohmann::json::parse(
      admin->Get(kubeclient::resources::PodGroups(), ns, "gang-a")->json)["status"];
  EXPECT_EQ(gang_a["resourcesStatus"]["allocated"]["nvidia.com/gpu"], "4") << gang_a.dump();
  EXPECT_EQ(gang_a["schedulingConditions"], nlohmann::json::array()) << gang_a.dump();
  nlohmann::json gang_b;
  EXPECT_TRUE(WaitFor(
      [&] {
        gang_b = nlohmann::json::parse(
            admin->Get(kubeclient::resources::PodGroups(), ns, "gang-b")->json)["status"];
        return gang_b.contains("schedulingConditions") && !gang_b["schedulingConditions"].empty() &&
               gang_b["schedulingConditions"][0]["message"].get<std::string>().find("GPUs") !=
                   std::string::npos;
      },
      std::chrono::seconds(20)))
      << gang_b.dump();
  const nlohmann::json& unschedulable = gang_b["schedulingConditions"][0];
  EXPECT_EQ(unschedulable["type"], "UnschedulableOnNodePool");
  EXPECT_EQ(unschedulable["nodePool"], "default");
  EXPECT_EQ(unschedulable["reason"], "Unschedulable");
  EXPECT_NE(unschedulable["message"].get<std::string>().find("GPUs"), std::string::npos)
      << unschedulable.dump();
  EXPECT_EQ(gang_b["resourcesStatus"]["requested"]["nvidia.com/gpu"], "4") << gang_b.dump();
  nlohmann::json queue = nlohmann::json::parse(
      admin->Get(kubeclient::resources::Queues(), "", "e2e-team")->json)["status"];
  EXPECT_EQ(queue["allocatedNonPreemptible"]["nvidia.com/gpu"], "0") << queue.dump();
  EXPECT_EQ(queue["childQueues"], nlohmann::json::array()) << queue.dump();

  // Operations endpoints: alive, ready (it leads: no election), and metrics under KAI's names
  // with our prefix.
  const int port = process.OpsPort();
  ASSERT_GT(port, 0) << process.Log();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(HttpGet(base + "/healthz").status, 200);
  EXPECT_EQ(HttpGet(base + "/readyz").status, 200);
  HttpAnswer metrics = HttpGet(base + "/metrics");
  EXPECT_EQ(metrics.status, 200);
  for (const char* name : {"quotient_binds_total 9", "quotient_e2e_scheduling_latency_milliseconds",
                           "quotient_action_scheduling_latency_milliseconds{action=\"allocate\"}",
                           "quotient_queue_fair_share_gpu{queue_name=\"e2e-team\"} 16",
                           "quotient_queue_deserved_gpus{queue_name=\"e2e-team\"} 16",
                           "quotient_queue_quota_cpu_cores{queue_name=\"e2e-team\"} -1",
                           "quotient_queue_info{queue_name=\"e2e-team\"} 1",
                           "quotient_queue_allocated_gpus{queue_name=\"e2e-team\"}",
                           "quotient_podgroups_scheduled_by_action{action=\"allocate\"}",
                           "quotient_cycle_duration_seconds_bucket"}) {
    EXPECT_NE(metrics.body.find(name), std::string::npos) << name;
  }
}

// GPUs requested by the pods bound to each node (from the API server).
std::map<std::string, int> GpusPerNode(kubeclient::Client& client, const std::string& ns) {
  std::map<std::string, int> out;
  auto pods = client.List(Pods(), ns, {});
  EXPECT_TRUE(pods.ok());
  if (!pods.ok()) return out;
  for (const auto& p : pods->items) {
    nlohmann::json pod = nlohmann::json::parse(p.json);
    std::string node = pod["spec"].value("nodeName", "");
    if (node.empty()) continue;
    out[node] += std::stoi(
        pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].get<std::string>());
  }
  return out;
}

int BoundCount(kubeclient::Client& client, const std::string& ns) {
  int bound = 0;
  for (const auto& [node, gpus] : GpusPerNode(client, ns)) bound += gpus;
  return bound;
}

TEST(SchedulerE2ETest, KillingTheLeaderMidRunHandsOverWithoutOverbooking) {
  TwoNodeCluster cluster("ha", {{"ha-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-ha";
  // The Lease lives in the scheduler's default --leader-elect-namespace.
  auto lease_ns = admin->Create(
      kubeclient::resources::Namespaces(), "",
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"quotient-system"}})");
  ASSERT_TRUE(lease_ns.ok() || lease_ns.Is(kubeclient::ApiReason::kAlreadyExists));
  const std::vector<std::string> ha = {"--leader-elect", "--lease-name", "ha-test"};
  SchedulerProcess a(scheduler, "-a", ha);
  ASSERT_TRUE(WaitFor([&] { return a.LogContains("leading"); }, std::chrono::seconds(30)));
  SchedulerProcess b(scheduler, "-b", ha);
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("p-" + std::to_string(i), scheduler, "ha-team", 1)).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 6; }, std::chrono::seconds(30)));
  EXPECT_FALSE(b.LogContains("leading"));

  a.Signal(SIGKILL);  // no release: b must wait out the lease, then take over
  // More than fits: 6 + 14 = 20 GPUs asked of 16.
  for (int i = 6; i < 20; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("p-" + std::to_string(i), scheduler, "ha-team", 1)).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 16; }, std::chrono::seconds(60)));
  EXPECT_TRUE(b.LogContains("leading"));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // a few more cycles
  // Nothing overbooked: each node holds at most its 8 GPUs, and no more than 16 were bound.
  std::map<std::string, int> per_node = GpusPerNode(*admin, ns);
  EXPECT_EQ(per_node["ha-gpu-1"], 8);
  EXPECT_EQ(per_node["ha-gpu-2"], 8);
  EXPECT_EQ(BoundCount(*admin, ns), 16);
}

TEST(SchedulerE2ETest, RestartingTheApiServerMidRunLosesNothing) {
  TwoNodeCluster cluster("rs", {{"rs-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-restart";
  SchedulerProcess process(scheduler);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("p-" + std::to_string(i), scheduler, "rs-team", 2)).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 10; }, std::chrono::seconds(30)));

  Status restarted = Harness().Restart();  // every watch of the scheduler breaks
  ASSERT_TRUE(restarted.ok()) << restarted.message();
  admin = AdminClient();
  // After the restart: one pod gone (its GPUs free again), four more asking 2 GPUs each.
  kubeclient::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(admin->Delete(Pods(), ns, "p-0", now).ok());
  for (int i = 5; i < 9; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("p-" + std::to_string(i), scheduler, "rs-team", 2)).ok());
  }
  // 8 pods x 2 GPUs = 16: everything fits exactly, once the scheduler has seen the deletion.
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 16; }, std::chrono::seconds(60)))
      << "bound GPUs: " << BoundCount(*admin, ns);
  std::map<std::string, int> per_node = GpusPerNode(*admin, ns);
  EXPECT_EQ(per_node["rs-gpu-1"], 8);
  EXPECT_EQ(per_node["rs-gpu-2"], 8);
}

TEST(SchedulerE2ETest, AQueueUnderItsQuotaReclaimsFromOneOverItAndSaysWhy) {
  TwoNodeCluster cluster("rc", {{"rc-under", 8}, {"rc-over", 8}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-reclaim";
  SchedulerProcess process(scheduler);
  for (int i = 0; i < 16; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("over-" + std::to_string(i), scheduler, "rc-over", 1))
            .ok());
  }
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 16; }, std::chrono::seconds(60)));
  // The other queue asks for its quota: reclaim takes 8 GPUs back from the queue over its own.
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("under-" + std::to_string(i), scheduler, "rc-under", 1))
            .ok());
  }
  auto bound_of = [&](const std::string& prefix) {
    int n = 0;
    auto pods = admin->List(Pods(), ns, {});
    for (const auto& p : pods->items) {
      if (p.name.rfind(prefix, 0) == 0 && !JsonField(p.json, "spec.nodeName").empty()) ++n;
    }
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return bound_of("under-") == 8; }, std::chrono::seconds(90)))
      << "under: " << bound_of("under-") << " over: " << bound_of("over-");
  EXPECT_EQ(bound_of("over-"), 8);
  // Each eviction is explained in an Event on the evicted pod.
  auto events = admin->List(kubeclient::resources::Events(), ns, {});
  ASSERT_TRUE(events.ok());
  int evict_events = 0;
  std::string example;
  for (const auto& e : events->items) {
    if (JsonField(e.json, "reason") != "Evict") continue;
    ++evict_events;
    example = JsonField(e.json, "note");
  }
  EXPECT_EQ(evict_events, 8);
  EXPECT_NE(example.find("was preempted by workload"), std::string::npos) << example;
  EXPECT_NE(example.find("rc-over uses"), std::string::npos) << example;
  std::printf("eviction explained: %s\n", example.c_str());
}

TEST(SchedulerE2ETest, ReclaimPassesOverPodsAPodDisruptionBudgetProtects) {
  TwoNodeCluster cluster("pdb", {{"pdb-under", 8}, {"pdb-over", 8}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-pdb";
  // Eight protected pods may not lose a single one (minAvailable 8 of 8).
  nlohmann::json pdb = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "keep-all"}}},
      {"spec", {{"minAvailable", 8}, {"selector", {{"matchLabels", {{"app", "protected"}}}}}}}};
  ASSERT_TRUE(admin->Create(kubeclient::resources::PodDisruptionBudgets(), ns, pdb.dump()).ok());
  SchedulerProcess process(scheduler);
  // The protected pods are created last, so without the budget they would be the first victims
  // (newest first within a queue).
  auto create = [&](const std::string& name, const std::string& queue, bool is_protected) {
    nlohmann::json pod = nlohmann::json::parse(GpuPod(name, scheduler, queue, 1));
    if (is_protected) pod["metadata"]["labels"]["app"] = "protected";
    ASSERT_TRUE(admin->Create(Pods(), ns, pod.dump()).ok()) << name;
  };
  for (int i = 0; i < 8; ++i) create("free-" + std::to_string(i), "pdb-over", false);
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 8; }, std::chrono::seconds(60)));
  for (int i = 0; i < 8; ++i) create("kept-" + std::to_string(i), "pdb-over", true);
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 16; }, std::chrono::seconds(60)));
  // The disruption controller has counted the eight protected pods healthy: none may go.
  ASSERT_TRUE(WaitFor(
      [&] {
        auto b = admin->Get(kubeclient::resources::PodDisruptionBudgets(), ns, "keep-all");
        return b.ok() && JsonField(b->json, "status.currentHealthy") == "8" &&
               JsonField(b->json, "status.disruptionsAllowed") == "0";
      },
      std::chrono::seconds(60)));
  for (int i = 0; i < 8; ++i) create("under-" + std::to_string(i), "pdb-under", false);
  auto running = [&](const std::string& prefix) {
    int n = 0;
    auto pods = admin->List(Pods(), ns, {});
    for (const auto& p : pods->items) {
      if (p.name.rfind(prefix, 0) == 0 && !p.deleting &&
          !JsonField(p.json, "spec.nodeName").empty())
        ++n;
    }
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return running("under-") == 8; }, std::chrono::seconds(90)))
      << "under: " << running("under-") << " kept: " << running("kept-")
      << " free: " << running("free-");
  EXPECT_EQ(running("kept-"), 8);
  EXPECT_EQ(running("free-"), 0);
  // No protected pod was even tried: no Evict event, no 429 from the Eviction API.
  auto events = admin->List(kubeclient::resources::Events(), ns, {});
  ASSERT_TRUE(events.ok());
  for (const auto& e : events->items) {
    if (JsonField(e.json, "reason") != "Evict") continue;
    EXPECT_EQ(JsonField(e.json, "regarding.name").rfind("kept-", 0), std::string::npos)
        << JsonField(e.json, "regarding.name");
  }
  EXPECT_FALSE(process.LogContains("blocked by a PodDisruptionBudget"));
}

// A queue labelled for a node pool (its shard sees only such queues).
nlohmann::json PoolQueueJson(const std::string& name, const std::string& pool) {
  nlohmann::json queue = QueueJson(name, -1);
  queue["metadata"]["labels"]["kai.scheduler/node-pool"] = pool;
  return queue;
}

TEST(SchedulerE2ETest, EachNodePoolShardSchedulesOnlyItsOwnPodsOnItsOwnNodes) {
  TwoNodeCluster cluster("np", {{"np-default", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string pool_node = cluster.nodes[0];
  const std::string default_node = cluster.nodes[1];
  ASSERT_TRUE(admin
                  ->Patch(Nodes(), "", pool_node, kubeclient::PatchType::kMerge,
                          R"({"metadata":{"labels":{"kai.scheduler/node-pool":"np-a"}}})")
                  .ok());
  ASSERT_TRUE(
      admin->Create(kubeclient::resources::Queues(), "", PoolQueueJson("np-a-queue", "np-a").dump())
          .ok());
  cluster.queues.push_back("np-a-queue");
  // Two instances of one scheduler name, one per shard, as KAI runs them.
  const std::string scheduler = "quotient-pools";
  SchedulerProcess pool_a(scheduler, "-a", {"--partition-label-value", "np-a"});
  SchedulerProcess default_pool(scheduler, "-default");
  auto create = [&](const std::string& name, const std::string& queue, bool in_pool) {
    nlohmann::json pod = nlohmann::json::parse(GpuPod(name, scheduler, queue, 2));
    if (in_pool) pod["metadata"]["labels"]["kai.scheduler/node-pool"] = "np-a";
    ASSERT_TRUE(admin->Create(Pods(), ns, pod.dump()).ok()) << name;
  };
  // Pool a asks for 10 GPUs of its 8; the default pool for 4 of its 8.
  for (int i = 0; i < 5; ++i) create("a-" + std::to_string(i), "np-a-queue", true);
  for (int i = 0; i < 2; ++i) create("d-" + std::to_string(i), "np-default", false);
  ASSERT_TRUE(WaitFor([&] { return BoundCount(*admin, ns) == 12; }, std::chrono::seconds(60)))
      << BoundCount(*admin, ns);
  std::map<std::string, int> per_node = GpusPerNode(*admin, ns);
  EXPECT_EQ(per_node[pool_node], 8);
  EXPECT_EQ(per_node[default_node], 4);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(NodeOf(*admin, ns, "d-" + std::to_string(i)), default_node);
  // The fifth pod of pool a stays pending although the default pool has room: pools do not
  // spill into each other. Its reason says so in its pool's terms.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(BoundCount(*admin, ns), 12);
  int pending = 0;
  for (int i = 0; i < 5; ++i) pending += NodeOf(*admin, ns, "a-" + std::to_string(i)).empty();
  EXPECT_EQ(pending, 1);
}

TEST(SchedulerE2ETest, AChangedConfigurationFileIsReloadedWithoutARestart) {
  TwoNodeCluster cluster("cr", {{"cr-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-reload";
  const std::string dir = Harness().data_dir() + "/reload-config";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/config.yaml";
  // Written as a ConfigMap volume does: a new file renamed over the old one.
  auto write = [&](const std::string& text) {
    std::ofstream(path + ".tmp") << text;
    std::filesystem::rename(path + ".tmp", path);
  };
  write("actions: \"reclaim\"\n");  // no allocate: nothing gets placed
  SchedulerProcess process(scheduler, "", {"--scheduler-conf", path});
  ASSERT_TRUE(admin->Create(Pods(), ns, GpuPod("waiting", scheduler, "cr-team", 1)).ok());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeOf(*admin, ns, "waiting"), "");
  // A file that does not parse is refused and the running configuration kept.
  write("actions: \"allocate, teleport\"\n");
  EXPECT_TRUE(
      WaitFor([&] { return process.LogContains("cannot be used"); }, std::chrono::seconds(20)))
      << process.Log();
  EXPECT_EQ(NodeOf(*admin, ns, "waiting"), "");
  write("actions: \"allocate\"\n");
  EXPECT_TRUE(
      WaitFor([&] { return !NodeOf(*admin, ns, "waiting").empty(); }, std::chrono::seconds(30)))
      << process.Log();
  EXPECT_TRUE(process.LogContains("reloaded the scheduler configuration"));
}

TEST(SchedulerE2ETest, WhenABindOfAGangFailsTheBindsNotYetSentAreReleased) {
  TwoNodeCluster cluster("gb", {{"gb-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  // An admission policy refuses to bind one pod of the gang (and a probe pod, to know when the
  // policy is in force).
  const kubeclient::Resource policies{"admissionregistration.k8s.io", "v1",
                                      "validatingadmissionpolicies", false};
  const kubeclient::Resource bindings{"admissionregistration.k8s.io", "v1",
                                      "validatingadmissionpolicybindings", false};
  nlohmann::json policy = {{"apiVersion", "admissionregistration.k8s.io/v1"},
                           {"kind", "ValidatingAdmissionPolicy"},
                           {"metadata", {{"name", "gb-refuse-bind"}}},
                           {"spec",
                            {{"failurePolicy", "Fail"},
                             {"matchConstraints",
                              {{"resourceRules",
                                {{{"apiGroups", {""}},
                                  {"apiVersions", {"v1"}},
                                  {"operations", {"CREATE"}},
                                  {"resources", {"pods/binding"}}}}}}},
                             {"validations",
                              {{{"expression", "!(object.metadata.name in ['gb-1', 'gb-probe'])"},
                                {"message", "this test refuses the bind"}}}}}}};
  ASSERT_TRUE(admin->Create(policies, "", policy.dump()).ok());
  nlohmann::json binding = {
      {"apiVersion", "admissionregistration.k8s.io/v1"},
      {"kind", "ValidatingAdmissionPolicyBinding"},
      {"metadata", {{"name", "gb-refuse-bind"}}},
      {"spec",
       {{"policyName", "gb-refuse-bind"},
        {"validationActions", {"Deny"}},
        {"matchResources",
         {{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}}}}}}};
  ASSERT_TRUE(admin->Create(bindings, "", binding.dump()).ok());
  ASSERT_TRUE(admin->Create(Pods(), ns, GpuPod("gb-probe", "nobody", "gb-team", 0)).ok());
  auto probe = admin->Get(Pods(), ns, "gb-probe");
  ASSERT_TRUE(probe.ok());
  std::string refusal;
  ASSERT_TRUE(WaitFor(
      [&] {
        kubeclient::ApiStatus bound = admin->Bind(ns, "gb-probe", probe->uid, cluster.nodes[0]);
        if (!bound.ok()) refusal = bound.error().Describe();
        return refusal.find("this test refuses the bind") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << "the admission policy never took effect: " << refusal;

  nlohmann::json group = {{"apiVersion", "scheduling.run.ai/v2alpha2"},
                          {"kind", "PodGroup"},
                          {"metadata", {{"name", "gb"}}},
                          {"spec", {{"queue", "gb-team"}, {"minMember", 3}}}};
  ASSERT_TRUE(admin->Create(kubeclient::resources::PodGroups(), ns, group.dump()).ok());
  // One bind worker: the gang's binds go out one after another, in task order.
  const std::string scheduler = "quotient-gang-bind";
  SchedulerProcess process(scheduler, "", {"--bind-workers", "1"});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("gb-" + std::to_string(i), scheduler, "gb-team", 1, "gb"))
            .ok());
  }
  ASSERT_TRUE(WaitFor([&] { return process.LogContains("releasing the rest of gang"); },
                      std::chrono::seconds(30)))
      << process.Log();
  // gb-0 went before the failure; gb-2, after it, was released, not bound.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeOf(*admin, ns, "gb-1"), "");
  EXPECT_EQ(NodeOf(*admin, ns, "gb-2"), "");
  // Once binds are allowed again, the gang completes (the bind backoff has passed).
  ASSERT_TRUE(admin->Delete(bindings, "", "gb-refuse-bind").ok());
  ASSERT_TRUE(admin->Delete(policies, "", "gb-refuse-bind").ok());
  EXPECT_TRUE(WaitFor(
      [&] {
        for (int i = 0; i < 3; ++i) {
          if (NodeOf(*admin, ns, "gb-" + std::to_string(i)).empty()) return false;
        }
        return true;
      },
      std::chrono::seconds(90)))
      << process.Log();
}

}  // namespace
}  // namespace quotient::k8s_integration
