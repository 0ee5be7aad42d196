// Writes against the real API server: optimistic concurrency, the patch flavours, server-side
// apply, status subresources, node conditions that leave the kubelet's alone, and events.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <thread>

#include "cluster.h"
#include "kubeclient/event_recorder.h"
#include "kubeclient/node_conditions.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::ApiReason;
using kubeclient::PatchType;
using kubeclient::RawObject;
using kubeclient::resources::ConfigMaps;
using kubeclient::resources::Nodes;

std::string Counter(const std::string& name, int value) {
  return nlohmann::json{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}}},
                        {"data", {{"count", std::to_string(value)}}}}
      .dump();
}

TEST(WritesTest, StaleUpdatesConflictAndRetryHelpersResolveThem) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "conflict");
  ASSERT_TRUE(admin->Create(ConfigMaps(), ns, Counter("c", 0)).ok());
  EXPECT_TRUE(admin->Create(ConfigMaps(), ns, Counter("c", 0)).Is(ApiReason::kAlreadyExists));

  // Two writers read the same version; the second write is refused.
  RawObject first = *admin->Get(ConfigMaps(), ns, "c");
  nlohmann::json a = nlohmann::json::parse(first.json);
  nlohmann::json b = a;
  a["data"]["count"] = "1";
  b["data"]["count"] = "2";
  ASSERT_TRUE(admin->Update(ConfigMaps(), ns, "c", a.dump()).ok());
  auto stale = admin->Update(ConfigMaps(), ns, "c", b.dump());
  ASSERT_TRUE(stale.Is(ApiReason::kConflict));
  EXPECT_NE(stale.error().message.find("the object has been modified"), std::string::npos);

  // Four writers add 10 each through read-modify-write with retry: no increment is lost.
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&] {
      auto client = AdminClient();
      for (int i = 0; i < 10; ++i) {
        auto r = client->UpdateWithRetry(
            ConfigMaps(), ns, "c",
            [](const RawObject& current) -> Result<std::string> {
              nlohmann::json j = nlohmann::json::parse(current.json);
              j["data"]["count"] =
                  std::to_string(std::stoi(j["data"]["count"].get<std::string>()) + 1);
              return j.dump();
            },
            100);
        if (!r.ok()) ++failures;
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(JsonField(admin->Get(ConfigMaps(), ns, "c")->json, "data.count"), "41");

  // Delete with a stale resourceVersion precondition: Conflict; with the right uid: gone.
  kubeclient::DeleteOptions stale_delete;
  stale_delete.precondition_resource_version = first.resource_version;
  EXPECT_TRUE(admin->Delete(ConfigMaps(), ns, "c", stale_delete).Is(ApiReason::kConflict));
  kubeclient::DeleteOptions by_uid;
  by_uid.precondition_uid = first.uid;
  EXPECT_TRUE(admin->Delete(ConfigMaps(), ns, "c", by_uid).ok());
  EXPECT_TRUE(admin->Get(ConfigMaps(), ns, "c").Is(ApiReason::kNotFound));
}

TEST(WritesTest, PatchFlavoursAndServerSideApply) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "patch");
  ASSERT_TRUE(admin->Create(ConfigMaps(), ns, Counter("m", 0)).ok());
  auto merged = admin->Patch(ConfigMaps(), ns, "m", PatchType::kMerge,
                             R"({"metadata":{"labels":{"a":"1"}},"data":{"extra":"x"}})");
  ASSERT_TRUE(merged.ok()) << merged.error().Describe();
  EXPECT_EQ(JsonField(merged->json, "data.extra"), "x");
  EXPECT_EQ(JsonField(merged->json, "data.count"), "0");  // merge keeps other keys

  // JSON patch with a test on the resourceVersion: compare-and-swap.
  std::string rv = merged->resource_version;
  auto cas = admin->Patch(ConfigMaps(), ns, "m", PatchType::kJson,
                          R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + rv +
                              R"("},{"op":"replace","path":"/data/count","value":"5"}])");
  ASSERT_TRUE(cas.ok()) << cas.error().Describe();
  auto stale_cas =
      admin->Patch(ConfigMaps(), ns, "m", PatchType::kJson,
                   R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + rv +
                       R"("},{"op":"replace","path":"/data/count","value":"6"}])");
  EXPECT_FALSE(stale_cas.ok());
  EXPECT_EQ(JsonField(admin->Get(ConfigMaps(), ns, "m")->json, "data.count"), "5");

  // Server-side apply: a second manager taking a field is a conflict unless forced.
  std::string mine =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"owner":"quotient"}})";
  ASSERT_TRUE(admin->Apply(ConfigMaps(), ns, "s", mine, "quotient", false).ok());
  std::string theirs =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"owner":"other"}})";
  auto conflict = admin->Apply(ConfigMaps(), ns, "s", theirs, "other-tool", false);
  ASSERT_TRUE(conflict.Is(ApiReason::kConflict));
  EXPECT_TRUE(conflict.error().HasCause("FieldManagerConflict"));
  auto forced = admin->Apply(ConfigMaps(), ns, "s", theirs, "other-tool", true);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(JsonField(forced->json, "data.owner"), "other");

  // Strategic merge patch is for built-in kinds only: a custom resource answers 415.
  nlohmann::json queue = {
      {"apiVersion", "scheduling.run.ai/v2"},
      {"kind", "Queue"},
      {"metadata", {{"name", ns + "-q"}}},
      {"spec", {{"resources", {{"gpu", {{"quota", 2}, {"limit", -1}, {"overQuotaWeight", 1}}}}}}}};
  ASSERT_TRUE(admin->Create(kubeclient::resources::Queues(), "", queue.dump()).ok());
  EXPECT_TRUE(admin
                  ->Patch(kubeclient::resources::Queues(), "", ns + "-q",
                          PatchType::kStrategicMerge, R"({"metadata":{"labels":{"x":"y"}}})")
                  .Is(ApiReason::kUnsupportedMediaType));
  auto status = admin->Patch(kubeclient::resources::Queues(), "", ns + "-q", PatchType::kMerge,
                             R"({"status":{"allocated":{"gpu":"1"}}})", "status");
  EXPECT_TRUE(status.ok()) << status.error().Describe();
  ASSERT_TRUE(admin->Delete(kubeclient::resources::Queues(), "", ns + "-q").ok());
}

TEST(WritesTest, NodeConditionPatchLeavesOtherConditionsUntouched) {
  auto admin = AdminClient();
  const std::string node = "fake-conditions-node";
  ASSERT_TRUE(admin->Create(Nodes(), "", FakeNodeJson(node)).ok());
  // The node simulator reports Ready; wait for it so there is someone else's condition to keep.
  ASSERT_TRUE(WaitFor(
      [&] {
        return admin->Get(Nodes(), "", node)->json.find(R"("type":"Ready")") != std::string::npos;
      },
      std::chrono::seconds(30)));
  auto now = std::chrono::system_clock::now();
  auto set = kubeclient::SetNodeConditions(
      *admin, node, {{"GPUHealthy", "False", "XidError", "XID 79 on GPU 3"}}, now);
  ASSERT_TRUE(set.ok()) << set.error().Describe();
  auto after = admin->Get(Nodes(), "", node);
  nlohmann::json conditions = nlohmann::json::parse(after->json)["status"]["conditions"];
  std::map<std::string, std::string> by_type;
  for (const auto& c : conditions) by_type[c["type"]] = c["status"];
  EXPECT_EQ(by_type["GPUHealthy"], "False");
  EXPECT_EQ(by_type["Ready"], "True");
  // A second condition type later: the first one stays.
  ASSERT_TRUE(
      kubeclient::SetNodeConditions(*admin, node, {{"FabricHealthy", "True", "Ok", ""}}, now).ok());
  conditions = nlohmann::json::parse(admin->Get(Nodes(), "", node)->json)["status"]["conditions"];
  by_type.clear();
  for (const auto& c : conditions) by_type[c["type"]] = c["status"];
  EXPECT_EQ(by_type["GPUHealthy"], "False");
  EXPECT_EQ(by_type["FabricHealthy"], "True");
  EXPECT_EQ(by_type["Ready"], "True");
  ASSERT_TRUE(admin->Delete(Nodes(), "", node).ok());
}

TEST(WritesTest, EventsAreCreatedAndRepeatsFoldIntoASeries) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "events");
  ASSERT_TRUE(admin->Create(kubeclient::resources::Pods(), ns, PodJson("waiting")).ok());
  auto pod = admin->Get(kubeclient::resources::Pods(), ns, "waiting");
  auto clock = std::chrono::system_clock::now();
  kubeclient::EventRecorder recorder(*admin, "quotient-scheduler", "it", [&] { return clock; });
  kubeclient::EventRecord record{{"v1", "Pod", ns, "waiting", pod->uid},
                                 "Warning",
                                 "FailedScheduling",
                                 "Scheduling",
                                 "0/3 nodes: 3 have no free GPU"};
  recorder.Record(record);
  recorder.Flush();
  clock += std::chrono::seconds(40);
  recorder.Record(record);
  recorder.Flush();
  EXPECT_EQ(recorder.Stats().created, 1) << recorder.Stats().last_error;
  EXPECT_EQ(recorder.Stats().series_patches, 1) << recorder.Stats().last_error;
  auto events = admin->List(kubeclient::resources::Events(), ns, {});
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->items.size(), 1u);
  EXPECT_EQ(JsonField(events->items[0].json, "series.count"), "2");
  EXPECT_EQ(JsonField(events->items[0].json, "regarding.name"), "waiting");
}

}  // namespace
}  // namespace quotient::k8s_integration
