#include "service/dashboard.h"

#include <utility>

namespace quotient::service {

// Defined in the file CMake generates from dashboard.html.
extern const std::string_view kDashboardHtml;

namespace {

// Nothing the page loads comes from elsewhere, and the browser is told so: scripts and styles
// only inline, requests only to this server, no framing.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

}  // namespace

bool Dashboard::WantsState(std::chrono::system_clock::time_point now) const {
  std::lock_guard lock(mu_);
  const bool watched = now - last_request_ < kWatchWindow;
  return watched && (!state_ || now - state_at_ >= kMinInterval);
}

void Dashboard::NoteCycle(int64_t cycle, std::chrono::system_clock::time_point started,
                          std::chrono::milliseconds schedule_period) {
  std::lock_guard lock(mu_);
  last_cycle_ = cycle;
  last_cycle_at_ = started;
  schedule_period_ = schedule_period;
}

void Dashboard::Publish(nlohmann::json state, std::chrono::system_clock::time_point computed_at) {
  auto published = std::make_shared<const nlohmann::json>(std::move(state));
  std::lock_guard lock(mu_);
  state_ = std::move(published);
  state_text_.reset();
  state_at_ = computed_at;
}

void Dashboard::RecordEviction(EvictionRecord eviction) {
  std::lock_guard lock(mu_);
  evictions_.Add(std::move(eviction));
}

void Dashboard::SetLeading(bool leading) {
  std::lock_guard lock(mu_);
  leading_ = leading;
}

std::string Dashboard::StateText(std::chrono::system_clock::time_point served_at) {
  std::shared_ptr<const nlohmann::json> state;
  std::shared_ptr<const std::string> state_text;
  nlohmann::json document;
  {
    std::lock_guard lock(mu_);
    if (served_at - last_request_ >= kWatchWindow) watching_since_ = served_at;
    last_request_ = served_at;
    DocumentFacts facts;
    facts.leading = leading_;
    facts.served_at = served_at;
    facts.last_cycle = last_cycle_;
    facts.last_cycle_at = last_cycle_at_;
    facts.schedule_period = schedule_period_;
    // Cycles run, but none has built a state since this watch began.
    facts.state_pending = last_cycle_ > 0 && (!state_ || state_at_ < watching_since_);
    document = DashboardDocument(evictions_, facts);
    state = state_;
    state_text = state_text_;
  }
  if (state && !state_text) {
    // The first request for this state serialises it (outside the lock: a large state takes a
    // while); a request at the same moment may do the same, and either text is the same.
    state_text = std::make_shared<const std::string>(state->dump());
    std::lock_guard lock(mu_);
    if (state_ == state) state_text_ = state_text;
  }
  // The document with the state's text put in as its "state" member: two serialised JSON
  // objects joined, so that the large state is neither copied nor serialised again per request.
  std::string text = document.dump();
  text.pop_back();  // the closing brace of a non-empty object
  text += ",\"state\":";
  text += state_text ? *state_text : std::string("null");
  text += '}';
  return text;
}

std::string_view DashboardHtml() { return kDashboardHtml; }

Status ServeDashboard(telemetry::OpsServer& ops, Dashboard& dashboard) {
  using Route = telemetry::OpsServer::Route;
  using Reply = telemetry::OpsServer::Reply;
  Route page{"text/html; charset=utf-8",
             {{"Cache-Control", "no-cache"},
              {"Content-Security-Policy", kContentSecurityPolicy},
              {"X-Content-Type-Options", "nosniff"}},
             [] {
               return Reply{200, std::string(DashboardHtml())};
             }};
  Route state{"application/json",
              {{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}},
              [&dashboard] {
                return Reply{200, dashboard.StateText(std::chrono::system_clock::now())};
              }};
  // Relative, so that it also works behind a path prefix (kubectl proxy's service proxy).
  Route slash{"text/plain; charset=utf-8", {{"Location", "../dashboard"}}, [] {
                return Reply{302, "see ../dashboard\n"};
              }};
  if (Status added = ops.AddRoute("/dashboard", std::move(page)); !added.ok()) return added;
  if (Status added = ops.AddRoute("/dashboard/state", std::move(state)); !added.ok()) return added;
  return ops.AddRoute("/dashboard/", std::move(slash));
}

}  // namespace quotient::service
