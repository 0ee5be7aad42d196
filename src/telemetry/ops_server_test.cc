#include "telemetry/ops_server.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <string_view>

#include "telemetry/http_fetch_for_test.h"

namespace quotient::telemetry {
namespace {

using test_support::Fetch;
using test_support::HttpAnswer;

OpsServer::ReadinessCheck AlwaysReady() {
  return [] { return std::pair<bool, std::string>{true, ""}; };
}

TEST(OpsServer, EphemeralPortIsReportedAndHealthzAnswersOk) {
  prometheus::Registry registry;
  OpsServer server(":0", AlwaysReady(), registry);
  ASSERT_TRUE(server.Start().ok());
  ASSERT_GT(server.Port(), 0);
  HttpAnswer answer = Fetch(server.Port(), "/healthz");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "ok");
}

TEST(OpsServer, ReadyzIs503WithTheReasonUntilTheCallbackSaysReady) {
  prometheus::Registry registry;
  std::atomic<bool> ready{false};
  OpsServer server(
      "127.0.0.1:0",
      [&ready] {
        return std::pair<bool, std::string>{ready.load(), "informer caches not synced"};
      },
      registry);
  ASSERT_TRUE(server.Start().ok());

  HttpAnswer not_ready = Fetch(server.Port(), "/readyz");
  EXPECT_EQ(not_ready.status, 503);
  EXPECT_EQ(not_ready.body, "informer caches not synced");

  ready = true;
  HttpAnswer now_ready = Fetch(server.Port(), "/readyz");
  EXPECT_EQ(now_ready.status, 200);
  EXPECT_EQ(now_ready.body, "ok");
  // Liveness does not depend on readiness.
  ready = false;
  EXPECT_EQ(Fetch(server.Port(), "/healthz").status, 200);
}

TEST(OpsServer, MetricsServesTheRegistryInTextFormat004) {
  prometheus::Registry registry;
  prometheus::BuildCounter()
      .Name("test_requests_total")
      .Help("requests")
      .Register(registry)
      .Add({{"path", "/x"}})
      .Increment(3);
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(server.Start().ok());

  HttpAnswer answer = Fetch(server.Port(), "/metrics");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(answer.body.find("# TYPE test_requests_total counter\n"), std::string::npos)
      << answer.body;
  EXPECT_NE(answer.body.find("test_requests_total{path=\"/x\"} 3\n"), std::string::npos)
      << answer.body;
}

TEST(OpsServer, MetricsCanComeFromACallback) {
  OpsServer server("127.0.0.1:0", AlwaysReady(), [] { return std::string("up 1\n"); });
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(Fetch(server.Port(), "/metrics").body, "up 1\n");
}

TEST(OpsServer, UnknownPathsAre404AndOtherMethods405) {
  prometheus::Registry registry;
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(server.Start().ok());
  for (const char* path : {"/", "/nope", "/healthz/extra", "/metricsx", "/readyz2"}) {
    EXPECT_EQ(Fetch(server.Port(), path).status, 404) << path;
  }
  EXPECT_EQ(Fetch(server.Port(), "/healthz", "POST").status, 405);
  EXPECT_EQ(Fetch(server.Port(), "/metrics", "DELETE").status, 405);
}

TEST(OpsServer, AReadinessCallbackThatThrowsGives500) {
  prometheus::Registry registry;
  OpsServer server(
      "127.0.0.1:0",
      []() -> std::pair<bool, std::string> { throw std::runtime_error("cache gone"); }, registry);
  ASSERT_TRUE(server.Start().ok());
  HttpAnswer answer = Fetch(server.Port(), "/readyz");
  EXPECT_EQ(answer.status, 500);
  EXPECT_NE(answer.body.find("cache gone"), std::string::npos);
}

TEST(OpsServer, PortAlreadyInUseIsAnErrorNamingTheAddress) {
  prometheus::Registry registry;
  OpsServer first("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(first.Start().ok());
  std::string taken = "127.0.0.1:" + std::to_string(first.Port());

  OpsServer second(taken, AlwaysReady(), registry);
  Status started = second.Start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find(taken), std::string::npos) << started.message();
  EXPECT_NE(started.message().find("Address already in use"), std::string::npos)
      << started.message();
  EXPECT_EQ(second.Port(), 0);
  // The first server is unaffected.
  EXPECT_EQ(Fetch(first.Port(), "/healthz").status, 200);
}

TEST(OpsServer, MalformedAddressOrSecondStartIsAnError) {
  prometheus::Registry registry;
  OpsServer malformed("8080", AlwaysReady(), registry);
  EXPECT_FALSE(malformed.Start().ok());

  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_FALSE(server.Start().ok());
}

TEST(OpsServer, StopIsIdempotentAndTheServerCanStartAgain) {
  prometheus::Registry registry;
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(server.Start().ok());
  int port = server.Port();
  server.Stop();
  server.Stop();
  EXPECT_EQ(server.Port(), 0);
  EXPECT_EQ(Fetch(port, "/healthz").status, 0);  // nothing listens any more

  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(Fetch(server.Port(), "/healthz").status, 200);
}

TEST(OpsServer, AnAddedRouteAnswersWithItsContentTypeHeadersAndStatus) {
  prometheus::Registry registry;
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  std::atomic<int> calls{0};
  OpsServer::Route page{"text/html; charset=utf-8", {{"Cache-Control", "no-store"}}, [&calls] {
                          ++calls;
                          return OpsServer::Reply{200, "<p>page " + std::to_string(calls) + "</p>"};
                        }};
  ASSERT_TRUE(server.AddRoute("/page", page).ok());
  ASSERT_TRUE(
      server.AddRoute("/gone", {"text/plain",
                                {},
                                [] {
                                  return OpsServer::Reply{410, "gone"};
                                }})
          .ok());
  ASSERT_TRUE(server.Start().ok());

  HttpAnswer first = Fetch(server.Port(), "/page");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(first.body, "<p>page 1</p>");
  EXPECT_NE(first.headers.find("Cache-Control: no-store"), std::string::npos) << first.headers;
  // Each request calls the route again; a query string does not change the path.
  EXPECT_EQ(Fetch(server.Port(), "/page?refresh=5").body, "<p>page 2</p>");
  HttpAnswer head = Fetch(server.Port(), "/page", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(Fetch(server.Port(), "/page", "POST").status, 405);
  HttpAnswer gone = Fetch(server.Port(), "/gone");
  EXPECT_EQ(gone.status, 410);
  EXPECT_EQ(gone.body, "gone");
  // Only the exact path: no prefix matching; the built-in paths are unchanged.
  EXPECT_EQ(Fetch(server.Port(), "/page/").status, 404);
  EXPECT_EQ(Fetch(server.Port(), "/pages").status, 404);
  EXPECT_EQ(Fetch(server.Port(), "/healthz").body, "ok");
}

TEST(OpsServer, RoutesAreRefusedForTakenPathsBadPathsAndOnceServing) {
  prometheus::Registry registry;
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  auto route = [] { return OpsServer::Route{"text/plain", {}, [] { return OpsServer::Reply{}; }}; };
  EXPECT_TRUE(server.AddRoute("/x", route()).ok());
  EXPECT_FALSE(server.AddRoute("/x", route()).ok());
  Status builtin = server.AddRoute("/metrics", route());
  EXPECT_FALSE(builtin.ok());
  EXPECT_NE(builtin.message().find("/metrics"), std::string::npos) << builtin.message();
  EXPECT_FALSE(server.AddRoute("x", route()).ok());
  EXPECT_FALSE(server.AddRoute("", route()).ok());
  ASSERT_TRUE(server.Start().ok());
  EXPECT_FALSE(server.AddRoute("/y", route()).ok());
  EXPECT_EQ(Fetch(server.Port(), "/y").status, 404);
}

TEST(OpsServer, ARouteThatThrowsGives500) {
  prometheus::Registry registry;
  OpsServer server("127.0.0.1:0", AlwaysReady(), registry);
  ASSERT_TRUE(
      server
          .AddRoute("/state", {"application/json",
                               {},
                               []() -> OpsServer::Reply { throw std::runtime_error("no state"); }})
          .ok());
  ASSERT_TRUE(server.Start().ok());
  HttpAnswer answer = Fetch(server.Port(), "/state");
  EXPECT_EQ(answer.status, 500);
  EXPECT_NE(answer.body.find("no state"), std::string::npos);
}

}  // namespace
}  // namespace quotient::telemetry
