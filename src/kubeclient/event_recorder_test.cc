#include "kubeclient/event_recorder.h"

#include <gtest/gtest.h>

#include "kubeclient/node_conditions.h"
#include "kubeclient/scripted_transport_for_test.h"

namespace quotient::kubeclient {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;
using testing::ScriptedTransport;

const char* kEvent = R"({"metadata":{"name":"e","namespace":"ns","resourceVersion":"1"}})";

EventRecord Pending(const std::string& note) {
  return {{"v1", "Pod", "ns", "p", "u1"}, "Warning", "FailedScheduling", "Scheduling", note};
}

struct Fixture {
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<Client> client;
  system_clock::time_point now{seconds(1795946400)};
  std::unique_ptr<EventRecorder> recorder;
  explicit Fixture(size_t max_queued = 100) {
    auto t = std::make_unique<ScriptedTransport>();
    transport = t.get();
    client = std::make_unique<Client>(std::move(t), ClientOptions{});
    recorder = std::make_unique<EventRecorder>(
        *client, "quotient-scheduler", "replica-1", [this] { return now; }, max_queued);
  }
};

TEST(EventRecorderTest, FirstOccurrenceCreatesAnEventWithTheRequiredFields) {
  Fixture f;
  f.transport->Answer(201, kEvent);
  f.recorder->Record(Pending("0/4 nodes have a free GPU"));
  f.recorder->Flush();
  ASSERT_EQ(f.transport->requests.size(), 1u);
  const HttpRequest& r = f.transport->requests[0];
  EXPECT_EQ(r.target, "/apis/events.k8s.io/v1/namespaces/ns/events");
  for (const char* part :
       {R"("reportingController":"quotient-scheduler")", R"("reportingInstance":"replica-1")",
        R"("eventTime":"2026-11-29T10:00:00.000000Z")", R"("reason":"FailedScheduling")",
        R"("action":"Scheduling")", R"("type":"Warning")",
        R"("regarding":{"apiVersion":"v1","kind":"Pod","name":"p","namespace":"ns","uid":"u1"})"}) {
    EXPECT_NE(r.body.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(f.recorder->Stats().created, 1);
}

TEST(EventRecorderTest, RepeatsBecomeASeriesPatchedAtMostEveryThirtySeconds) {
  Fixture f;
  f.transport->Answer(201, kEvent);
  f.recorder->Record(Pending("no GPU"));
  f.recorder->Flush();
  f.now += seconds(10);
  f.recorder->Record(Pending("no GPU"));  // count 2, too soon to patch
  f.recorder->Record(Pending("no GPU"));  // count 3
  f.now += seconds(25);                   // 35 s after the first
  f.transport->Answer(200, kEvent);
  f.recorder->Record(Pending("no GPU"));  // count 4 -> patch
  f.recorder->Flush();
  ASSERT_EQ(f.transport->requests.size(), 2u);
  EXPECT_EQ(f.transport->requests[1].method, "PATCH");
  EXPECT_EQ(f.transport->requests[1].content_type, "application/merge-patch+json");
  EXPECT_NE(f.transport->requests[1].body.find(R"("count":4)"), std::string::npos);
  EXPECT_NE(
      f.transport->requests[1].body.find(R"("lastObservedTime":"2026-11-29T10:00:35.000000Z")"),
      std::string::npos);
  // A different note is a different event.
  f.transport->Answer(201, kEvent);
  f.recorder->Record(Pending("other reason"));
  f.recorder->Flush();
  EXPECT_EQ(f.transport->requests[2].method, "POST");
  // After six quiet minutes the series is over: a new Event.
  f.now += std::chrono::minutes(7);
  f.transport->Answer(201, kEvent);
  f.recorder->Record(Pending("no GPU"));
  f.recorder->Flush();
  EXPECT_EQ(f.transport->requests[3].method, "POST");
  EXPECT_EQ(f.recorder->Stats().created, 3);
  EXPECT_EQ(f.recorder->Stats().series_patches, 1);
}

TEST(EventRecorderTest, AFullQueueDropsInsteadOfBlocking) {
  Fixture f(2);
  f.recorder->Record(Pending("a"));
  f.recorder->Record(Pending("b"));
  f.recorder->Record(Pending("c"));
  EXPECT_EQ(f.recorder->Stats().dropped, 1);
  f.transport->Answer(201, kEvent);
  f.transport->Answer(500, R"({"kind":"Status","reason":"InternalError","code":500})");
  f.recorder->Flush();
  EXPECT_EQ(f.recorder->Stats().created, 1);
  EXPECT_EQ(f.recorder->Stats().failed, 1);
}

TEST(NodeConditionsTest, PatchCarriesOnlyOurTypesAndKeepsTransitionTimeWhileStatusHolds) {
  const std::string node = R"({"metadata":{"name":"n"},"status":{"conditions":[
    {"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z"},
    {"type":"GPUHealthy","status":"True","lastTransitionTime":"2026-02-02T00:00:00Z"},
    {"type":"FabricHealthy","status":"True","lastTransitionTime":"2026-03-03T00:00:00Z"}]}})";
  Result<std::string> patch =
      NodeConditionsPatch(node,
                          {{"GPUHealthy", "True", "Ok", "all 8 GPUs healthy"},
                           {"FabricHealthy", "False", "LinkDown", "ib0 down"}},
                          system_clock::time_point(seconds(1795946400)));
  ASSERT_TRUE(patch.ok());
  EXPECT_EQ(patch->find("Ready"), std::string::npos);
  EXPECT_NE(patch->find(R"("lastTransitionTime":"2026-02-02T00:00:00Z")"), std::string::npos);
  EXPECT_NE(patch->find(R"("lastTransitionTime":"2026-11-29T10:00:00Z","message":"ib0 down")"),
            std::string::npos);
  EXPECT_NE(patch->find(R"("lastHeartbeatTime":"2026-11-29T10:00:00Z")"), std::string::npos);
}

}  // namespace
}  // namespace quotient::kubeclient
