#include "kubeclient/reflector.h"

#include <random>

namespace quotient::kubeclient {
namespace {

int64_t RandomWatchTimeout() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_int_distribution<int64_t>(300, 600)(engine);
}

}  // namespace

Reflector::Reflector(Client& client, ReflectorOptions options, DeltaSink& sink)
    : client_(client),
      options_(std::move(options)),
      sink_(sink),
      backoff_(options_.initial_backoff) {
  if (!options_.watch_timeout_seconds) options_.watch_timeout_seconds = RandomWatchTimeout;
}

std::string Reflector::LastResourceVersion() const {
  std::lock_guard lock(mu_);
  return last_version_;
}

ReflectorStats Reflector::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void Reflector::Run(std::stop_token stop) {
  std::stop_callback wake_on_stop(stop, [this] { wake_.notify_all(); });
  // A reflector run again after a stop resumes: it watches from where it was (and relists if
  // the server no longer has that version).
  Next next = LastResourceVersion().empty() ? Next::kList : Next::kWatch;
  while (!stop.stop_requested()) {
    if (backoff_pending_) WaitBackoff(stop);
    if (stop.stop_requested()) break;
    next = next == Next::kList ? ListOnce() : WatchOnce(stop);
  }
}

Reflector::Next Reflector::ListOnce() {
  ListOptions list;
  list.label_selector = options_.label_selector;
  list.field_selector = options_.field_selector;
  list.limit = options_.page_size;
  // Always a consistent list (resourceVersion unset): a relist must not go back in time, and
  // paging is honoured only for consistent lists. A continue token that expires part way (410)
  // restarts the list once at once, as client-go's pager does.
  ApiResult<std::string> version = TransportError("not listed");
  for (int attempt = 0; attempt < 2; ++attempt) {
    sink_.BeginReplace();
    version = client_.ListEach(options_.resource, options_.namespace_name, list,
                               [&](RawObject&& object) { sink_.ReplaceItem(std::move(object)); });
    {
      std::lock_guard lock(mu_);
      ++stats_.lists;
    }
    if (version.ok()) break;
    sink_.AbortReplace();
    if (!version.Is(ApiReason::kGone)) break;
  }
  if (!version.ok()) return Failed(version.error(), Next::kList);
  {
    std::lock_guard lock(mu_);
    last_version_ = *version;
  }
  sink_.EndReplace(*version);
  return Next::kWatch;
}

Reflector::Next Reflector::WatchOnce(const std::stop_token& stop) {
  WatchOptions watch;
  watch.resource_version = LastResourceVersion();
  watch.label_selector = options_.label_selector;
  watch.field_selector = options_.field_selector;
  watch.timeout_seconds = options_.watch_timeout_seconds();
  watch.allow_bookmarks = true;
  {
    std::lock_guard lock(mu_);
    ++stats_.watches;
  }
  std::string decode_failure;
  int64_t events = 0;
  auto started = std::chrono::steady_clock::now();
  ApiStatus end = client_.Watch(
      options_.resource, options_.namespace_name, watch,
      [&](WatchEvent&& event) {
        ++events;
        std::string version = event.object.resource_version;
        if (event.type != WatchEvent::Type::kBookmark && event.object.name.empty()) {
          // Skip it, say so, keep the stream: one bad object must not stall every update.
          decode_failure = options_.resource.Describe() + " watch event: metadata.name: missing";
        } else if (event.type == WatchEvent::Type::kAdded) {
          sink_.OnAdded(std::move(event.object));
        } else if (event.type == WatchEvent::Type::kModified) {
          sink_.OnModified(std::move(event.object));
        } else if (event.type == WatchEvent::Type::kDeleted) {
          sink_.OnDeleted(std::move(event.object));
        }
        if (!version.empty()) {
          std::lock_guard lock(mu_);
          last_version_ = std::move(version);
        }
      },
      [&stop] { return stop.stop_requested(); });
  if (!decode_failure.empty()) {
    std::lock_guard lock(mu_);
    stats_.last_error = decode_failure;
  }
  if (end.ok()) {
    // A watch the server ends at once without a word is a failure in disguise (a proxy that
    // closes streams, a server shutting down): back off instead of spinning.
    if (events == 0 && !stop.stop_requested() &&
        std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) {
      return Failed(TransportError("watch ended immediately without events"), Next::kWatch);
    }
    return Next::kWatch;  // normal end: watch again from the last version
  }
  if (end.Is(ApiReason::kGone)) {
    std::lock_guard lock(mu_);
    ++stats_.relists_after_gone;
    stats_.last_error = end.error().Describe();
    return Next::kList;
  }
  ApiReason r = end.error().reason;
  bool rewatch = r == ApiReason::kTransport || r == ApiReason::kTooManyRequests ||
                 r == ApiReason::kInternalError || r == ApiReason::kServiceUnavailable ||
                 r == ApiReason::kTimeout;
  return Failed(end.error(), rewatch ? Next::kWatch : Next::kList);
}

Reflector::Next Reflector::Failed(const ApiError& error, Next then) {
  std::lock_guard lock(mu_);
  ++stats_.failures;
  stats_.last_error = error.Describe();
  auto now = std::chrono::steady_clock::now();
  if (last_failure_ != std::chrono::steady_clock::time_point{} &&
      now - last_failure_ >= options_.backoff_reset_after) {
    backoff_ = options_.initial_backoff;
  }
  last_failure_ = now;
  backoff_pending_ = true;
  return then;
}

void Reflector::WaitBackoff(const std::stop_token& stop) {
  std::unique_lock lock(mu_);
  std::chrono::milliseconds wait = backoff_;
  backoff_ = std::min(backoff_ * 2, options_.max_backoff);
  backoff_pending_ = false;
  wake_.wait_for(lock, stop, wait, [] { return false; });
}

}  // namespace quotient::kubeclient
