#include "kubeclient/client.h"

#include <gtest/gtest.h>

#include "kubeclient/scripted_transport_for_test.h"

namespace quotient::kubeclient {
namespace {

using testing::ScriptedTransport;

std::string PodJson(const std::string& ns, const std::string& name, const std::string& rv) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"u-)" + name + R"(","resourceVersion":")" + rv + R"("},"spec":{}})";
}

std::string StatusJson(int code, const std::string& reason, const std::string& message,
                       const std::string& details = "{}") {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(","details":)" + details + R"(,"code":)" +
         std::to_string(code) + "}";
}

struct Fixture {
  ScriptedTransport* transport = nullptr;
  std::vector<std::chrono::seconds> sleeps;
  int tokens_taken = 0;
  std::unique_ptr<Client> client;

  Fixture() {
    auto t = std::make_unique<ScriptedTransport>();
    transport = t.get();
    ClientOptions options;
    options.sleep = [this](std::chrono::seconds d) { sleeps.push_back(d); };
    options.wait_for_token = [this] { ++tokens_taken; };
    client = std::make_unique<Client>(std::move(t), options);
  }
};

TEST(ResourceTest, PathsForCoreGroupsNamespacedAndClusterScoped) {
  EXPECT_EQ(resources::Pods().Path("ns", "p", "binding"), "/api/v1/namespaces/ns/pods/p/binding");
  EXPECT_EQ(resources::Pods().Path(""), "/api/v1/pods");
  EXPECT_EQ(resources::Nodes().Path("ignored", "n1", "status"), "/api/v1/nodes/n1/status");
  EXPECT_EQ(resources::Queues().Path("", "q"), "/apis/scheduling.run.ai/v2/queues/q");
  EXPECT_EQ(resources::Leases().Path("kube-system", "l"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l");
  EXPECT_EQ(EscapeQueryValue("app in (a,b),x!=y"), "app%20in%20%28a%2Cb%29%2Cx%21%3Dy");
}

TEST(ApiErrorTest, StatusBodiesMapToTypedReasons) {
  EXPECT_EQ(ErrorFromResponse(404, StatusJson(404, "NotFound", "pods \"x\" not found"), 0).reason,
            ApiReason::kNotFound);
  EXPECT_EQ(ErrorFromResponse(409, StatusJson(409, "AlreadyExists", "exists"), 0).reason,
            ApiReason::kAlreadyExists);
  EXPECT_EQ(ErrorFromResponse(409, StatusJson(409, "Conflict", "modified"), 0).reason,
            ApiReason::kConflict);
  // Expired and Gone are the same thing to a reflector: relist.
  EXPECT_EQ(ErrorFromResponse(410, StatusJson(410, "Expired", "too old"), 0).reason,
            ApiReason::kGone);
  EXPECT_EQ(ErrorFromResponse(410, StatusJson(410, "Gone", "gone"), 0).reason, ApiReason::kGone);
  ApiError forbidden = ErrorFromResponse(
      403, StatusJson(403, "Forbidden", "pods is forbidden: User \\\"x\\\" cannot list"), 0);
  EXPECT_EQ(forbidden.reason, ApiReason::kForbidden);
  EXPECT_EQ(forbidden.message, "pods is forbidden: User \"x\" cannot list");
  EXPECT_EQ(forbidden.Describe(), "Forbidden (403): pods is forbidden: User \"x\" cannot list");
  ApiError invalid = ErrorFromResponse(
      422,
      StatusJson(
          422, "Invalid", "bad",
          R"({"causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]})"),
      0);
  EXPECT_EQ(invalid.reason, ApiReason::kInvalid);
  ASSERT_EQ(invalid.causes.size(), 1u);
  EXPECT_EQ(invalid.causes[0].field, "spec.containers");
  EXPECT_TRUE(invalid.HasCause("FieldValueRequired"));
  ApiError pdb = ErrorFromResponse(
      429,
      StatusJson(
          429, "TooManyRequests", "Cannot evict",
          R"({"causes":[{"reason":"DisruptionBudget","message":"needs 2 healthy"}],"retryAfterSeconds":3})"),
      0);
  EXPECT_EQ(pdb.reason, ApiReason::kTooManyRequests);
  EXPECT_EQ(pdb.retry_after_seconds, 3);
  // Not a Status: the code decides, the body becomes the message.
  ApiError plain = ErrorFromResponse(503, "upstream connect error", 0);
  EXPECT_EQ(plain.reason, ApiReason::kServiceUnavailable);
  EXPECT_EQ(plain.message, "upstream connect error");
}

TEST(ClientTest, GetReturnsTheObjectAndItsMetadata) {
  Fixture f;
  f.transport->Answer(200, PodJson("ns", "p", "42"));
  ApiResult<RawObject> pod = f.client->Get(resources::Pods(), "ns", "p");
  ASSERT_TRUE(pod.ok()) << pod.error().Describe();
  EXPECT_EQ(pod->Key(), "ns/p");
  EXPECT_EQ(pod->uid, "u-p");
  EXPECT_EQ(pod->resource_version, "42");
  EXPECT_EQ(f.transport->requests[0].target, "/api/v1/namespaces/ns/pods/p");
  EXPECT_EQ(f.tokens_taken, 1);
}

TEST(ClientTest, RetriesAnswersCarryingRetryAfterAndStopsAtTheLimit) {
  Fixture f;
  f.transport->Answer(429, StatusJson(429, "TooManyRequests", "slow down"), 2);
  f.transport->Answer(503, StatusJson(503, "ServiceUnavailable", "starting"), 1);
  f.transport->Answer(200, PodJson("ns", "p", "1"));
  ASSERT_TRUE(f.client->Get(resources::Pods(), "ns", "p").ok());
  ASSERT_EQ(f.sleeps.size(), 2u);
  EXPECT_EQ(f.sleeps[0], std::chrono::seconds(2));
  EXPECT_EQ(f.sleeps[1], std::chrono::seconds(1));
  EXPECT_EQ(f.tokens_taken, 3);  // every attempt is throttled

  Fixture g;
  for (int i = 0; i < 11; ++i)
    g.transport->Answer(429, StatusJson(429, "TooManyRequests", "no"), 1);
  ApiResult<RawObject> r = g.client->Get(resources::Pods(), "ns", "p");
  EXPECT_TRUE(r.Is(ApiReason::kTooManyRequests));
  EXPECT_EQ(g.sleeps.size(), 10u);  // 1 try + 10 retries
  EXPECT_EQ(g.transport->remaining(), 0u);
}

TEST(ClientTest, AnswersWithoutRetryAfterAreFinal) {
  Fixture f;
  f.transport->Answer(500, StatusJson(500, "InternalError", "boom"));
  EXPECT_TRUE(f.client->Get(resources::Pods(), "ns", "p").Is(ApiReason::kInternalError));
  EXPECT_TRUE(f.sleeps.empty());
  Fixture g;
  g.transport->Fail("connection refused");
  EXPECT_TRUE(g.client->Get(resources::Pods(), "ns", "p").Is(ApiReason::kTransport));
}

std::string PodList(const std::string& rv, const std::string& cont,
                    const std::vector<std::string>& names) {
  std::string items;
  for (const std::string& n : names) {
    if (!items.empty()) items += ",";
    items += PodJson("ns", n, "7");
  }
  return R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
         R"(","continue":")" + cont + R"("},"items":[)" + items + "]}";
}

TEST(ClientTest, ListFollowsContinueTokensAndKeepsTheFirstPagesVersion) {
  Fixture f;
  f.transport->Answer(200, PodList("100", "tok1", {"a", "b"}));
  f.transport->Answer(200, PodList("100", "tok 2", {"c"}));
  f.transport->Answer(200, PodList("100", "", {"d"}));
  ListOptions options;
  options.limit = 2;
  options.label_selector = "app=x";
  ApiResult<Client::ListResult> list = f.client->List(resources::Pods(), "", options);
  ASSERT_TRUE(list.ok()) << list.error().Describe();
  ASSERT_EQ(list->items.size(), 4u);
  EXPECT_EQ(list->items[3].name, "d");
  EXPECT_EQ(list->resource_version, "100");
  ASSERT_EQ(f.transport->requests.size(), 3u);
  EXPECT_EQ(f.transport->requests[0].target, "/api/v1/pods?labelSelector=app%3Dx&limit=2");
  EXPECT_EQ(f.transport->requests[2].target,
            "/api/v1/pods?labelSelector=app%3Dx&limit=2&continue=tok%202");
}

TEST(ClientTest, ListStartsOverOnceWhenTheContinueTokenExpired) {
  Fixture f;
  f.transport->Answer(200, PodList("100", "tok1", {"a"}));
  f.transport->Answer(410, StatusJson(410, "Expired", "continue token expired"));
  f.transport->Answer(200, PodList("200", "", {"a", "b"}));
  ApiResult<Client::ListResult> list = f.client->List(resources::Pods(), "ns", {});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 2u);  // not a, a, b
  EXPECT_EQ(list->resource_version, "200");
}

TEST(ClientTest, WatchDeliversEventsAcrossChunksAndStopsOnAnErrorEvent) {
  Fixture f;
  std::string e1 = R"({"type":"ADDED","object":)" + PodJson("ns", "a", "5") + "}\n";
  std::string e2 =
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}})"
      "\n";
  std::string err =
      R"js({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 3 (9)","reason":"Expired","code":410}})js"
      "\n";
  f.transport->StreamAnswer({e1.substr(0, 10), e1.substr(10) + e2, err});
  std::vector<WatchEvent> events;
  WatchOptions options;
  options.resource_version = "3";
  options.timeout_seconds = 300;
  ApiStatus end = f.client->Watch(
      resources::Pods(), "ns", options, [&](WatchEvent&& e) { events.push_back(std::move(e)); },
      [] { return false; });
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, WatchEvent::Type::kAdded);
  EXPECT_EQ(events[1].object.resource_version, "9");
  EXPECT_TRUE(end.Is(ApiReason::kGone));
  EXPECT_EQ(end.error().message, "too old resource version: 3 (9)");
  EXPECT_EQ(f.transport->requests[0].target,
            "/api/v1/namespaces/ns/pods?watch=1&resourceVersion=3&allowWatchBookmarks=true"
            "&timeoutSeconds=300");
}

TEST(ClientTest, WatchRejectedAtStartIsTyped) {
  Fixture f;
  f.transport->Answer(410, StatusJson(410, "Expired", "too old resource version"));
  ApiStatus end = f.client->Watch(
      resources::Pods(), "", {}, [](WatchEvent&&) {}, [] { return false; });
  EXPECT_TRUE(end.Is(ApiReason::kGone));
}

TEST(ClientTest, EvictionBlockedByABudgetIsAnAnswerNotAnError) {
  Fixture f;
  f.transport->Answer(
      429, StatusJson(429, "TooManyRequests",
                      "Cannot evict pod as it would violate the pod's disruption budget.",
                      R"({"causes":[{"reason":"DisruptionBudget","message":"needs 2"}]})"));
  f.transport->Answer(201, R"({"kind":"Status","status":"Success","code":201})");
  f.transport->Answer(404, StatusJson(404, "NotFound", "pods \"p\" not found"));
  ApiResult<EvictionOutcome> blocked = f.client->Evict("ns", "p", "u-p");
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(*blocked, EvictionOutcome::kBlockedByDisruptionBudget);
  ApiResult<EvictionOutcome> evicted = f.client->Evict("ns", "p", "u-p");
  ASSERT_TRUE(evicted.ok());
  EXPECT_EQ(*evicted, EvictionOutcome::kEvicted);
  EXPECT_TRUE(f.client->Evict("ns", "p", "u-p").Is(ApiReason::kNotFound));
  EXPECT_EQ(f.transport->requests[0].target, "/api/v1/namespaces/ns/pods/p/eviction");
  EXPECT_NE(f.transport->requests[0].body.find(R"("preconditions":{"uid":"u-p"})"),
            std::string::npos);
}

TEST(ClientTest, BindPostsABindingWithTheUidPrecondition) {
  Fixture f;
  f.transport->Answer(201, R"({"kind":"Status","status":"Success","code":201})");
  ASSERT_TRUE(f.client->Bind("ns", "p", "u-p", "node-1").ok());
  const HttpRequest& r = f.transport->requests[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/api/v1/namespaces/ns/pods/p/binding");
  EXPECT_NE(r.body.find(R"("target":{"apiVersion":"v1","kind":"Node","name":"node-1"})"),
            std::string::npos);
  EXPECT_NE(r.body.find(R"("uid":"u-p")"), std::string::npos);
}

TEST(ClientTest, PatchAndApplyUseTheRightContentTypesAndQueries) {
  Fixture f;
  f.transport->Answer(200, PodJson("ns", "p", "2"));
  f.transport->Answer(200, PodJson("ns", "p", "3"));
  ASSERT_TRUE(
      f.client->Patch(resources::Nodes(), "", "n", PatchType::kStrategicMerge, "{}", "status")
          .ok());
  ASSERT_TRUE(f.client->Apply(resources::Pods(), "ns", "p", "{}", "quotient", true).ok());
  EXPECT_EQ(f.transport->requests[0].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(f.transport->requests[0].target, "/api/v1/nodes/n/status");
  EXPECT_EQ(f.transport->requests[1].content_type, "application/apply-patch+yaml");
  EXPECT_EQ(f.transport->requests[1].target,
            "/api/v1/namespaces/ns/pods/p?fieldManager=quotient&force=true");
}

TEST(ClientTest, UpdateWithRetryRereadsAfterAConflict) {
  Fixture f;
  f.transport->Answer(200, PodJson("ns", "p", "1"));
  f.transport->Answer(409, StatusJson(409, "Conflict", "the object has been modified"));
  f.transport->Answer(200, PodJson("ns", "p", "2"));
  f.transport->Answer(200, PodJson("ns", "p", "3"));
  std::vector<std::string> seen_versions;
  ApiResult<RawObject> r = f.client->UpdateWithRetry(
      resources::Pods(), "ns", "p", [&](const RawObject& current) -> Result<std::string> {
        seen_versions.push_back(current.resource_version);
        return current.json;
      });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->resource_version, "3");
  EXPECT_EQ(seen_versions, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(f.transport->requests[1].method, "PUT");
}

TEST(ClientTest, DeleteSendsPreconditionsAndPropagation) {
  Fixture f;
  f.transport->Answer(200, R"({"kind":"Status","status":"Success"})");
  DeleteOptions options;
  options.grace_period_seconds = 0;
  options.propagation_policy = "Foreground";
  options.precondition_uid = "u1";
  ASSERT_TRUE(f.client->Delete(resources::Jobs(), "ns", "j", options).ok());
  const std::string& body = f.transport->requests[0].body;
  EXPECT_NE(body.find(R"("gracePeriodSeconds":0)"), std::string::npos);
  EXPECT_NE(body.find(R"("propagationPolicy":"Foreground")"), std::string::npos);
  EXPECT_NE(body.find(R"("preconditions":{"uid":"u1"})"), std::string::npos);
  EXPECT_EQ(f.transport->requests[0].target, "/apis/batch/v1/namespaces/ns/jobs/j");
}

}  // namespace
}  // namespace quotient::kubeclient
