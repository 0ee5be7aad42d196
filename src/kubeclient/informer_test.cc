#include "kubeclient/informer.h"

#include <gtest/gtest.h>

#include "kubeclient/scripted_transport_for_test.h"

namespace quotient::kubeclient {
namespace {

using testing::ScriptedTransport;

struct PodLite {
  std::string node;
};

std::string Pod(const std::string& name, const std::string& rv, const std::string& node) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"ns","uid":"u-)" + name +
         R"(","resourceVersion":")" + rv + R"("},"spec":{"nodeName":")" + node + R"("}})";
}
std::string List(const std::string& rv, const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& i : items) joined += (joined.empty() ? "" : ",") + i;
  return R"({"kind":"PodList","metadata":{"resourceVersion":")" + rv + R"("},"items":[)" + joined +
         "]}";
}
std::string Event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}\n";
}
const char* kGone =
    R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410})";

// Reads spec.nodeName the simplest way a test can; a real decoder uses the kube codecs.
Result<PodLite> DecodePod(const RawObject& raw) {
  auto at = raw.json.find("\"nodeName\":\"");
  if (at == std::string::npos) return Result<PodLite>::Error("spec.nodeName: missing");
  at += 12;
  return PodLite{raw.json.substr(at, raw.json.find('"', at) - at)};
}

struct Recorder {
  std::vector<std::string> log;
  Informer<PodLite>::Handlers Handlers() {
    return {[this](const auto& o) { log.push_back("add " + o->name + "@" + o->resource_version); },
            [this](const auto& old, const auto& now) {
              log.push_back("update " + now->name + " " + old->resource_version + "->" +
                            now->resource_version);
            },
            [this](const auto& o) { log.push_back("delete " + o->name); }};
  }
};

struct Harness {
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<Client> client;
  std::unique_ptr<Informer<PodLite>> informer;
  Recorder recorder;

  Harness() {
    auto t = std::make_unique<ScriptedTransport>();
    transport = t.get();
    client = std::make_unique<Client>(std::move(t), ClientOptions{});
    informer = std::make_unique<Informer<PodLite>>(*client, Options(), DecodePod);
    informer->AddHandlers(recorder.Handlers());
    EXPECT_TRUE(informer->indexer()
                    .AddIndex("node",
                              [](const Cached<PodLite>& p) {
                                return std::vector<std::string>{p.value.node};
                              })
                    .ok());
  }
  // Runs the reflector on this thread until the script is used up.
  void RunScript() {
    std::stop_source stop;
    transport->on_exhausted = [&] { stop.request_stop(); };
    Reflector reflector(*client, Options(), *informer);
    reflector.Run(stop.get_token());
    last_version = reflector.LastResourceVersion();
    stats = reflector.Stats();
  }
  static ReflectorOptions Options() {
    ReflectorOptions options;
    options.resource = resources::Pods();
    options.initial_backoff = std::chrono::milliseconds(1);
    options.watch_timeout_seconds = [] { return int64_t{300}; };
    return options;
  }
  std::string last_version;
  ReflectorStats stats;
};

TEST(InformerTest, ListThenWatchKeepsTheCacheAndTellsHandlersAfterStoring) {
  Harness h;
  h.transport->Answer(200, List("10", {Pod("a", "5", "n1"), Pod("b", "6", "n1")}));
  h.transport->StreamAnswer(
      {Event("MODIFIED", Pod("a", "11", "n2")),
       Event("ADDED", Pod("c", "12", "n2")) + Event("DELETED", Pod("b", "13", "n1")),
       R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"20"}}})"
       "\n"});
  h.RunScript();
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add a@5", "add b@6", "update a 5->11",
                                                      "add c@12", "delete b"}));
  EXPECT_EQ(h.last_version, "20");  // the bookmark's
  EXPECT_TRUE(h.informer->HasSynced());
  auto on_n2 = h.informer->indexer().IndexKeys("node", "n2");
  ASSERT_TRUE(on_n2.ok());
  EXPECT_EQ(*on_n2, (std::vector<std::string>{"ns/a", "ns/c"}));
  EXPECT_TRUE(h.informer->indexer().IndexKeys("node", "n1")->empty());
  // The watch started from the list's version and asked for bookmarks.
  EXPECT_EQ(h.transport->requests[1].target,
            "/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=300");
}

TEST(InformerTest, NormalEndRewatchesFromTheLastVersionWithoutRelisting) {
  Harness h;
  h.transport->Answer(200, List("10", {Pod("a", "5", "n1")}));
  h.transport->StreamAnswer({Event("ADDED", Pod("b", "11", "n1"))});
  h.transport->StreamAnswer({Event("ADDED", Pod("c", "12", "n1"))});
  h.RunScript();
  ASSERT_GE(h.transport->requests.size(), 3u);
  EXPECT_NE(h.transport->requests[2].target.find("watch=1&resourceVersion=11&"), std::string::npos);
  EXPECT_EQ(h.stats.lists, 1);
  EXPECT_EQ(h.informer->indexer().Size(), 3u);
}

TEST(InformerTest, GoneRelistsAndReportsOnlyWhatChanged) {
  Harness h;
  h.transport->Answer(200,
                      List("10", {Pod("a", "5", "n1"), Pod("b", "6", "n1"), Pod("c", "7", "n1")}));
  h.transport->StreamAnswer({Event("ERROR", kGone)});
  // Meanwhile: a unchanged, b modified, c deleted, d created.
  h.transport->Answer(
      200, List("30", {Pod("a", "5", "n1"), Pod("b", "25", "n3"), Pod("d", "26", "n1")}));
  h.RunScript();
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add a@5", "add b@6", "add c@7", "add d@26",
                                                      "update b 6->25", "delete c"}));
  EXPECT_EQ(h.stats.relists_after_gone, 1);
  EXPECT_EQ(h.stats.lists, 2);
  EXPECT_EQ(*h.informer->indexer().IndexKeys("node", "n3"), (std::vector<std::string>{"ns/b"}));
}

TEST(InformerTest, WatchRejectedWithGoneAtStartAlsoRelists) {
  Harness h;
  h.transport->Answer(200, List("10", {}));
  h.transport->Answer(410, kGone);
  h.transport->Answer(200, List("40", {Pod("x", "39", "n1")}));
  h.RunScript();
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add x@39"}));
  EXPECT_EQ(h.stats.relists_after_gone, 1);
}

TEST(InformerTest, ConnectionLossRewatchesFromTheLastVersionAfterBackoff) {
  Harness h;
  h.transport->Answer(200, List("10", {Pod("a", "5", "n1")}));
  h.transport->StreamAnswer({Event("ADDED", Pod("b", "11", "n1"))});
  h.transport->Fail("connection refused");  // the API server restarts
  h.transport->StreamAnswer({Event("MODIFIED", Pod("b", "15", "n2"))});
  h.RunScript();
  EXPECT_EQ(h.stats.lists, 1);     // no relist: the version was still good
  EXPECT_EQ(h.stats.failures, 1);  // the refused connection (the end of the script is a stop)
  EXPECT_NE(h.transport->requests[3].target.find("resourceVersion=11&"), std::string::npos);
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add a@5", "add b@11", "update b 11->15"}));
}

TEST(InformerTest, ReplayedAddAtTheSameVersionIsNotDeliveredTwice) {
  Harness h;
  h.transport->Answer(200, List("10", {Pod("a", "5", "n1")}));
  h.transport->StreamAnswer({Event("ADDED", Pod("a", "5", "n1"))});
  h.RunScript();
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add a@5"}));
}

TEST(InformerTest, UndecodableObjectsAreSkippedAndNamed) {
  Harness h;
  h.transport->Answer(
      200, List("10", {Pod("a", "5", "n1"),
                       R"({"metadata":{"name":"bad","namespace":"ns","resourceVersion":"6"}})"}));
  h.RunScript();
  EXPECT_EQ(h.informer->indexer().Size(), 1u);
  EXPECT_EQ(h.informer->DecodeErrors(),
            (std::vector<std::string>{"ns/bad: spec.nodeName: missing"}));
}

TEST(InformerTest, AListCutShortByAnExpiredContinueTokenStartsOverAndKeepsNothingPartial) {
  Harness h;
  h.transport->Answer(
      200, R"({"kind":"PodList","metadata":{"resourceVersion":"10","continue":"t1"},"items":[)" +
               Pod("gone-by-now", "5", "n1") + "]}");
  h.transport->Answer(410, kGone);  // the second page's token expired
  h.transport->Answer(200, List("30", {Pod("a", "25", "n1")}));
  h.RunScript();
  EXPECT_EQ(h.recorder.log, (std::vector<std::string>{"add a@25"}));
  EXPECT_EQ(h.informer->indexer().ListKeys(), (std::vector<std::string>{"ns/a"}));
  EXPECT_EQ(h.stats.lists, 2);
  EXPECT_EQ(h.stats.failures, 0);  // restarted at once, no backoff
}

TEST(InformerTest, ForbiddenListBacksOffAndListsAgain) {
  Harness h;
  h.transport->Answer(403, R"({"kind":"Status","reason":"Forbidden","message":"no","code":403})");
  h.transport->Answer(200, List("10", {Pod("a", "5", "n1")}));
  h.RunScript();
  EXPECT_EQ(h.stats.lists, 2);
  EXPECT_EQ(h.informer->indexer().Size(), 1u);
}

}  // namespace
}  // namespace quotient::kubeclient

namespace quotient::kubeclient {
namespace {

TEST(RawObjectTest, MetadataCarriesLabelsAndOwners) {
  Result<RawObject> raw = ReadRawObject(
      R"({"metadata":{"name":"p","namespace":"ns","labels":{"app":"x","tier":"gpu"},"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"u-j","controller":true}],"deletionTimestamp":"2026-11-29T10:00:00Z"}})");
  ASSERT_TRUE(raw.ok()) << raw.message();
  EXPECT_EQ(raw->labels, (std::map<std::string, std::string>{{"app", "x"}, {"tier", "gpu"}}));
  ASSERT_EQ(raw->owners.size(), 1u);
  EXPECT_EQ(raw->owners[0].kind, "Job");
  EXPECT_EQ(raw->owners[0].uid, "u-j");
  EXPECT_TRUE(raw->owners[0].controller);
  EXPECT_TRUE(raw->deleting);
  EXPECT_EQ(ReadRawObject(R"({"metadata":{"name":"p","labels":{"a":1}}})").message(),
            "object: metadata.labels: expected string values");
  EXPECT_EQ(ReadRawObject(R"({"metadata":{"namespace":"ns"}})").message(),
            "object: metadata.name: missing");
}

TEST(InformerIndexTest, StandardIndexesByNamespaceLabelAndOwner) {
  Indexer<Cached<int>> indexer;
  ASSERT_TRUE(indexer.AddIndex("namespace", IndexByNamespace<int>).ok());
  ASSERT_TRUE(indexer.AddIndex("label", IndexByLabel<int>).ok());
  ASSERT_TRUE(indexer.AddIndex("owner", IndexByOwnerUid<int>).ok());
  auto make = [](std::string ns, std::string name, std::map<std::string, std::string> labels,
                 std::string owner_uid) {
    Cached<int> c{ns + "/" + name, ns, name, "", "1", std::move(labels), {}, 0};
    if (!owner_uid.empty()) c.owners.push_back({"batch/v1", "Job", "j", owner_uid, true});
    return std::make_shared<const Cached<int>>(std::move(c));
  };
  indexer.Add("a/p1", make("a", "p1", {{"app", "x"}}, "job-1"));
  indexer.Add("a/p2", make("a", "p2", {{"app", "y"}}, "job-1"));
  indexer.Add("b/p3", make("b", "p3", {{"app", "x"}}, ""));
  EXPECT_EQ(*indexer.IndexKeys("namespace", "a"), (std::vector<std::string>{"a/p1", "a/p2"}));
  EXPECT_EQ(*indexer.IndexKeys("label", "app=x"), (std::vector<std::string>{"a/p1", "b/p3"}));
  EXPECT_EQ(*indexer.IndexKeys("owner", "job-1"), (std::vector<std::string>{"a/p1", "a/p2"}));
}

}  // namespace
}  // namespace quotient::kubeclient
