// The dashboard's routes on a real ops server: the page as built in, the state document as the
// Dashboard holds it, the redirect, and the headers that keep the page self-contained.
#include "service/dashboard.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "telemetry/http_fetch_for_test.h"

namespace quotient::service {
namespace {

using nlohmann::json;

using telemetry::test_support::Fetch;
using telemetry::test_support::HttpAnswer;

class DashboardRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ServeDashboard(server_, dashboard_).ok());
    ASSERT_TRUE(server_.Start().ok());
  }
  int port() const { return server_.Port(); }

  Dashboard dashboard_{2};
  telemetry::OpsServer server_{"127.0.0.1:0", {}, [] { return std::string(); }};
};

TEST_F(DashboardRoutes, ThePageIsTheBuiltInFileAndFetchesNothingFromElsewhere) {
  const HttpAnswer page = Fetch(port(), "/dashboard");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.body, std::string(DashboardHtml()));
  EXPECT_EQ(page.body.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.body.find("dashboard/state"), std::string::npos);
  // Self-contained: no external script, style sheet, font or image, and the browser is told to
  // load none.
  for (const char* external : {"http://", "https://", "stylesheet", "src=", "@import", "url("}) {
    EXPECT_EQ(page.body.find(external), std::string::npos) << external;
  }
  // The one link is the empty icon, inline (so the browser asks for no /favicon.ico).
  EXPECT_EQ(page.body.find("href="), page.body.find("href=\"data:,\""));
  EXPECT_EQ(page.body.find("href=", page.body.find("href=") + 1), std::string::npos);
  EXPECT_NE(page.headers.find("Content-Security-Policy: default-src 'none'"), std::string::npos)
      << page.headers;
  EXPECT_NE(page.headers.find("connect-src 'self'"), std::string::npos) << page.headers;
}

TEST_F(DashboardRoutes, TheStateSaysWhetherThereIsOneYetAndWhoLeads) {
  const HttpAnswer empty = Fetch(port(), "/dashboard/state");
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(empty.content_type, "application/json");
  EXPECT_NE(empty.headers.find("Cache-Control: no-store"), std::string::npos) << empty.headers;
  const json before = json::parse(empty.body);
  EXPECT_EQ(before["state"], nullptr);
  EXPECT_EQ(before["leading"], false);
  EXPECT_EQ(before["state_pending"], false);  // no cycle yet
  EXPECT_EQ(before["evictions"], json::array());

  const auto cycle = std::chrono::system_clock::now();
  dashboard_.SetLeading(true);
  dashboard_.NoteCycle(3, cycle, std::chrono::milliseconds(1000));
  dashboard_.Publish({{"cycle", 3}, {"queues", json::array({"a", "b"})}}, cycle);
  dashboard_.RecordEviction(
      {std::chrono::system_clock::time_point{}, "preempt", "ns/a", "ns/g", "team", "n1", "why"});
  const auto asked = std::chrono::system_clock::now();
  const json after = json::parse(Fetch(port(), "/dashboard/state").body);
  EXPECT_EQ(after["leading"], true);
  EXPECT_EQ(after["state"], json({{"cycle", 3}, {"queues", json::array({"a", "b"})}}));
  EXPECT_EQ(after["last_cycle"], 3);
  EXPECT_EQ(after["state_pending"], false);  // built after this watch began
  ASSERT_EQ(after["evictions"].size(), 1u);
  EXPECT_EQ(after["evictions"][0]["action"], "preempt");
  EXPECT_EQ(after["evictions"][0]["reason"], "why");
  // Served at the time of the request (the page measures the state's age on this clock).
  const int64_t asked_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(asked.time_since_epoch()).count();
  EXPECT_GE(after["served_at_ms"].get<int64_t>(), asked_ms);
  EXPECT_LT(after["served_at_ms"].get<int64_t>(), asked_ms + 5000);

  // The next state replaces the last one whole.
  dashboard_.Publish({{"cycle", 4}}, cycle + std::chrono::seconds(1));
  const json next = json::parse(Fetch(port(), "/dashboard/state").body);
  EXPECT_EQ(next["state"], json({{"cycle", 4}}));
}

TEST_F(DashboardRoutes, ATrailingSlashRedirectsRelativelyAndOtherPathsAreUnknown) {
  const HttpAnswer slash = Fetch(port(), "/dashboard/");
  EXPECT_EQ(slash.status, 302);
  EXPECT_NE(slash.headers.find("Location: ../dashboard"), std::string::npos) << slash.headers;
  EXPECT_EQ(Fetch(port(), "/dashboard/other").status, 404);
  EXPECT_EQ(Fetch(port(), "/dashboard.html").status, 404);
}

using Time = std::chrono::system_clock::time_point;
const Time kT0{std::chrono::seconds(1'700'000'000)};

TEST(Dashboard, BuildsStatesOnlyWhileWatchedAndAtMostOncePerInterval) {
  Dashboard dashboard;
  // Nobody has asked: no state is wanted.
  EXPECT_FALSE(dashboard.WantsState(kT0));
  (void)dashboard.StateText(kT0);
  EXPECT_TRUE(dashboard.WantsState(kT0));  // watched, and no state yet
  dashboard.Publish(json::object(), kT0);
  EXPECT_FALSE(dashboard.WantsState(kT0 + Dashboard::kMinInterval / 2));
  EXPECT_TRUE(dashboard.WantsState(kT0 + Dashboard::kMinInterval));
  // A minute without a request: nobody watches any more.
  EXPECT_TRUE(dashboard.WantsState(kT0 + Dashboard::kWatchWindow - std::chrono::seconds(1)));
  EXPECT_FALSE(dashboard.WantsState(kT0 + Dashboard::kWatchWindow));
}

TEST(Dashboard, AStateFromBeforeTheWatchIsPendingUntilTheNextCycleBuildsOne) {
  Dashboard dashboard;
  dashboard.SetLeading(true);
  dashboard.NoteCycle(1, kT0, std::chrono::milliseconds(1000));
  dashboard.Publish({{"cycle", 1}}, kT0);
  // Ten minutes on, cycles still run (noted) but nobody watched, so none built a state.
  const Time later = kT0 + std::chrono::minutes(10);
  dashboard.NoteCycle(600, later, std::chrono::milliseconds(1000));
  const json first = json::parse(dashboard.StateText(later + std::chrono::milliseconds(10)));
  EXPECT_EQ(first["state_pending"], true);
  EXPECT_EQ(first["state"]["cycle"], 1);
  EXPECT_EQ(first["last_cycle"], 600);
  // The next cycle builds one: no longer pending.
  const Time next = later + std::chrono::seconds(1);
  ASSERT_TRUE(dashboard.WantsState(next));
  dashboard.NoteCycle(601, next, std::chrono::milliseconds(1000));
  dashboard.Publish({{"cycle", 601}}, next);
  const json second = json::parse(dashboard.StateText(next + std::chrono::milliseconds(10)));
  EXPECT_EQ(second["state_pending"], false);
  EXPECT_EQ(second["state"]["cycle"], 601);
  // Cycles ran but none built a state yet: pending too (no state at all).
  Dashboard fresh;
  fresh.NoteCycle(1, kT0, std::chrono::milliseconds(1000));
  const json none = json::parse(fresh.StateText(kT0 + std::chrono::milliseconds(10)));
  EXPECT_EQ(none["state"], nullptr);
  EXPECT_EQ(none["state_pending"], true);
}

TEST(DashboardServe, RefusesAServerThatServesAlready) {
  Dashboard dashboard;
  telemetry::OpsServer server{"127.0.0.1:0", {}, [] { return std::string(); }};
  ASSERT_TRUE(server.Start().ok());
  EXPECT_FALSE(ServeDashboard(server, dashboard).ok());
}

}  // namespace
}  // namespace quotient::service
