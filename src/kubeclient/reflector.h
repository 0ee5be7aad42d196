// The reflector keeps a local copy of one kind of object in step with the API server, as
// client-go's does: LIST (paged, consistent), hand the whole set over as a Replace, then WATCH
// from the list's resourceVersion with bookmarks and hand over each event; track the last
// resourceVersion seen (events and bookmarks alike).
//
//   - the server ends the watch normally (timeout, restart)    -> watch again from the last version
//   - 410 Gone/Expired (on the request or as an ERROR event)   -> list again, at once
//   - connection refused/reset, 429, 5xx while watching        -> back off, then watch again from
//     the last version (a version the server no longer has comes back as 410, then relist)
//   - any other failure (Forbidden, a list that fails)         -> back off, then list again
//
// Backoff: 800 ms doubling to 30 s, reset after 2 minutes without failure (client-go's values).
// Deliveries happen on the thread that calls Run, in the order the server sent them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "kubeclient/client.h"

namespace quotient::kubeclient {

// Where a reflector delivers what it learns.
class DeltaSink {
 public:
  virtual ~DeltaSink() = default;
  // A list delivers the complete current set in pieces, page by page, so that a large list is
  // never held whole: BeginReplace, ReplaceItem for each object, then EndReplace — or
  // AbortReplace when the list failed part way (nothing it delivered counts). After EndReplace,
  // objects not delivered are gone.
  virtual void BeginReplace() = 0;
  virtual void ReplaceItem(RawObject object) = 0;
  virtual void AbortReplace() = 0;
  virtual void EndReplace(const std::string& resource_version) = 0;
  virtual void OnAdded(RawObject object) = 0;
  virtual void OnModified(RawObject object) = 0;
  virtual void OnDeleted(RawObject object) = 0;
};

struct ReflectorOptions {
  Resource resource;
  std::string namespace_name;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{30'000};
  std::chrono::seconds backoff_reset_after{120};
  // Server-side watch timeout for each watch request; the default picks at random in
  // [5 min, 10 min] as client-go does, so many clients do not re-watch in lockstep.
  std::function<int64_t()> watch_timeout_seconds;
};

struct ReflectorStats {
  int64_t lists = 0;
  int64_t watches = 0;
  int64_t relists_after_gone = 0;
  int64_t failures = 0;
  std::string last_error;
};

class Reflector {
 public:
  Reflector(Client& client, ReflectorOptions options, DeltaSink& sink);

  // Lists and watches until `stop` is requested (also interrupts a backoff wait or an open
  // watch within about a second). Run again after a stop, it resumes watching from the last
  // version instead of listing.
  void Run(std::stop_token stop);

  // The last resourceVersion delivered (list, event or bookmark).
  std::string LastResourceVersion() const;
  ReflectorStats Stats() const;

 private:
  enum class Next { kList, kWatch };
  Next ListOnce();
  Next WatchOnce(const std::stop_token& stop);
  Next Failed(const ApiError& error, Next then);
  void WaitBackoff(const std::stop_token& stop);

  Client& client_;
  ReflectorOptions options_;
  DeltaSink& sink_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::string last_version_;
  ReflectorStats stats_;
  std::chrono::milliseconds backoff_;
  bool backoff_pending_ = false;
  std::chrono::steady_clock::time_point last_failure_{};
};

}  // namespace quotient::kubeclient
