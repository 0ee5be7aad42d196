// The scheduler's live dashboard (issue 13; docs/dashboard.md): a read-only web page on the ops
// server, next to /healthz, /readyz and /metrics, when `quotient scheduler --dashboard` asks for
// it:
//   GET /dashboard         the page: one HTML file with its CSS and JavaScript inline, nothing
//                          fetched from elsewhere (src/service/dashboard.html, compiled in)
//   GET /dashboard/state   the JSON it polls (DashboardDocument, dashboard_state.h)
//   GET /dashboard/        a redirect to /dashboard
//
// Dashboard holds what the page shows: the last cycle's state and the last evictions. It outlives
// any one SchedulerService, so a replica that stops leading keeps its last state and says it no
// longer leads.
//
// What it costs: building the state takes a few milliseconds per thousand nodes
// (docs/dashboard.md), inside the cycle (the snapshot cannot be held past it without making the
// next one a full rebuild). So the service builds one only while someone watches (a state request
// in the last kWatchWindow) and at most once per kMinInterval; every other cycle it only notes
// that the cycle ran. A page that starts watching gets the old state marked "state_pending" and a
// fresh one from the next cycle. Each state is serialised once, at its first request.
//
// Thread safety: every method may be called from any thread; the service's cycle writes, the ops
// server's workers read.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "service/dashboard_state.h"
#include "telemetry/ops_server.h"

namespace quotient::service {

class Dashboard {
 public:
  static constexpr size_t kDefaultEvictionCapacity = 50;
  // A page polls every few seconds; a minute without a request means nobody is watching.
  static constexpr std::chrono::seconds kWatchWindow{60};
  static constexpr std::chrono::milliseconds kMinInterval{1000};
  explicit Dashboard(size_t eviction_capacity = kDefaultEvictionCapacity)
      : evictions_(eviction_capacity) {}

  // Whether the cycle that started at `now` should build a state (someone watches, and the last
  // state is at least kMinInterval old).
  bool WantsState(std::chrono::system_clock::time_point now) const;
  // Every cycle: its number and start, and the schedule period (the longest time between two
  // cycles), whether or not it builds a state.
  void NoteCycle(int64_t cycle, std::chrono::system_clock::time_point started,
                 std::chrono::milliseconds schedule_period);
  // The state of the cycle that started at `computed_at` (BuildDashboardState).
  void Publish(nlohmann::json state, std::chrono::system_clock::time_point computed_at);
  void RecordEviction(EvictionRecord eviction);
  // Whether this replica schedules (it leads, or runs without leader election).
  void SetLeading(bool leading);
  // The /dashboard/state body at `served_at`; counts as someone watching.
  std::string StateText(std::chrono::system_clock::time_point served_at);

 private:
  mutable std::mutex mu_;
  // Replaced whole by each Publish; serialised once, at its first request.
  std::shared_ptr<const nlohmann::json> state_;
  std::shared_ptr<const std::string> state_text_;
  std::chrono::system_clock::time_point state_at_{};  // its cycle's start
  int64_t last_cycle_ = 0;
  std::chrono::system_clock::time_point last_cycle_at_{};
  std::chrono::milliseconds schedule_period_{1000};
  std::chrono::system_clock::time_point last_request_{};
  std::chrono::system_clock::time_point watching_since_{};
  EvictionLog evictions_;
  bool leading_ = false;
};

// The page (src/service/dashboard.html as built into the binary).
std::string_view DashboardHtml();

// Adds /dashboard, /dashboard/ and /dashboard/state to `ops` (before it starts), reading
// `dashboard`, which must outlive the server.
Status ServeDashboard(telemetry::OpsServer& ops, Dashboard& dashboard);

}  // namespace quotient::service
