#include "kubeclient/event_recorder.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "kubeclient/micro_time.h"

namespace quotient::kubeclient {
namespace {

constexpr auto kSeriesWindow = std::chrono::minutes(6);
constexpr auto kSeriesPatchInterval = std::chrono::seconds(30);
constexpr size_t kMaxNote = 1024;
constexpr size_t kMaxAction = 128;

std::string DedupeKey(const EventRecord& e) {
  const ObjectReference& r = e.regarding;
  return r.kind + "\x1f" + r.namespace_name + "\x1f" + r.name + "\x1f" + r.uid + "\x1f" + e.type +
         "\x1f" + e.reason + "\x1f" + e.action + "\x1f" + e.note;
}

nlohmann::json Reference(const ObjectReference& r) {
  nlohmann::json j = {{"apiVersion", r.api_version}, {"kind", r.kind}, {"name", r.name}};
  if (!r.namespace_name.empty()) j["namespace"] = r.namespace_name;
  if (!r.uid.empty()) j["uid"] = r.uid;
  return j;
}

}  // namespace

EventRecorder::EventRecorder(Client& client, std::string reporting_controller,
                             std::string reporting_instance, WallNow now, size_t max_queued)
    : client_(client),
      controller_(std::move(reporting_controller)),
      instance_(std::move(reporting_instance)),
      now_(std::move(now)),
      max_queued_(max_queued) {
  if (!now_) now_ = [] { return std::chrono::system_clock::now(); };
}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void EventRecorder::Record(EventRecord event) {
  auto at = now_();
  std::lock_guard lock(mu_);
  if (queue_.size() >= max_queued_) {
    ++stats_.dropped;
    return;
  }
  queue_.emplace_back(std::move(event), at);
  cv_.notify_one();
}

void EventRecorder::Start() {
  worker_ = std::thread([this] {
    for (;;) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
      }
      Drain();
    }
  });
}

void EventRecorder::Drain() {
  std::lock_guard writer(write_mu_);
  for (;;) {
    std::pair<EventRecord, std::chrono::system_clock::time_point> next;
    {
      std::lock_guard lock(mu_);
      if (queue_.empty()) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    Write(next.first, next.second);
  }
}

void EventRecorder::Flush() {
  Drain();
  std::lock_guard writer(write_mu_);
  for (auto& [key, series] : series_) {
    if (series.count != series.patched_count) PatchSeries(series);
  }
}

EventRecorderStats EventRecorder::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void EventRecorder::Write(const EventRecord& event, std::chrono::system_clock::time_point at) {
  std::string key = DedupeKey(event);
  auto found = series_.find(key);
  if (found != series_.end() && at - found->second.last_observed < kSeriesWindow) {
    Series& series = found->second;
    ++series.count;
    series.last_observed = at;
    if (at - series.last_patch >= kSeriesPatchInterval) PatchSeries(series);
    return;
  }
  std::string ns =
      event.regarding.namespace_name.empty() ? "default" : event.regarding.namespace_name;
  char suffix[24];
  std::snprintf(
      suffix, sizeof suffix, "%llx",
      static_cast<unsigned long long>(  // NOLINT(runtime/int): printf's type
          std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count()));
  std::string name = event.regarding.name + "." + suffix;
  nlohmann::json body = {{"apiVersion", "events.k8s.io/v1"},
                         {"kind", "Event"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"eventTime", FormatMicroTime(at)},
                         {"reportingController", controller_},
                         {"reportingInstance", instance_},
                         {"action", event.action.substr(0, kMaxAction)},
                         {"reason", event.reason},
                         {"note", event.note.substr(0, kMaxNote)},
                         {"type", event.type},
                         {"regarding", Reference(event.regarding)}};
  ApiResult<RawObject> created = client_.Create(resources::Events(), ns, body.dump());
  std::lock_guard lock(mu_);
  if (!created.ok()) {
    ++stats_.failed;
    stats_.last_error = created.error().Describe();
    return;
  }
  ++stats_.created;
  series_[key] = Series{name, ns, 1, 1, at, at};
  // Forget series that can no longer grow, so the map stays as small as the recent past.
  constexpr size_t kPruneAbove = 4096;
  if (series_.size() > kPruneAbove) {
    std::erase_if(series_,
                  [&](const auto& s) { return at - s.second.last_observed >= kSeriesWindow; });
  }
}

void EventRecorder::PatchSeries(Series& series) {
  nlohmann::json patch = {
      {"series",
       {{"count", series.count}, {"lastObservedTime", FormatMicroTime(series.last_observed)}}}};
  ApiResult<RawObject> patched = client_.Patch(resources::Events(), series.namespace_name,
                                               series.event_name, PatchType::kMerge, patch.dump());
  series.last_patch = series.last_observed;
  std::lock_guard lock(mu_);
  if (!patched.ok()) {
    ++stats_.failed;
    stats_.last_error = patched.error().Describe();
    return;
  }
  series.patched_count = series.count;
  ++stats_.series_patches;
}

}  // namespace quotient::kubeclient
