// Kubernetes Events (events.k8s.io/v1) for people reading `kubectl describe`: why a pod is
// pending, what was preempted. Best effort by design — recording never blocks the caller (a
// bounded queue; when full, events are dropped and counted) and a failed write is not retried
// beyond the client's own Retry-After handling.
//
// Repeats are folded like client-go's tools/events: the same (object, type, reason, action,
// note) seen again within 6 minutes of its last occurrence becomes a series on the first Event
// (series.count, series.lastObservedTime), patched at most every 30 seconds per event (the
// latest count goes out with the next patch or Flush); after 6 quiet minutes a new Event starts.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "kubeclient/client.h"

namespace quotient::kubeclient {

struct ObjectReference {
  std::string api_version = "v1";
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
};

struct EventRecord {
  ObjectReference regarding;
  std::string type = "Normal";  // Normal or Warning
  std::string reason;           // CamelCase: FailedScheduling, Preempted
  std::string action;           // what was done: Scheduling, Preempting (<= 128 chars)
  std::string note;             // human text (<= 1 kB; longer is cut)
};

struct EventRecorderStats {
  int64_t created = 0;
  int64_t series_patches = 0;
  int64_t dropped = 0;
  int64_t failed = 0;
  std::string last_error;
};

class EventRecorder {
 public:
  using WallNow = std::function<std::chrono::system_clock::time_point()>;
  EventRecorder(Client& client, std::string reporting_controller, std::string reporting_instance,
                WallNow now = {}, size_t max_queued = 1000);
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues an event; never blocks on the API server.
  void Record(EventRecord event);
  // Writes everything queued (and pending series counts) on the calling thread.
  void Flush();
  // A background thread that writes queued events as they come; stopped by the destructor.
  void Start();
  EventRecorderStats Stats() const;

 private:
  struct Series {
    std::string event_name;
    std::string namespace_name;
    int64_t count = 1;
    int64_t patched_count = 1;
    std::chrono::system_clock::time_point last_observed;
    std::chrono::system_clock::time_point last_patch;
  };
  void Write(const EventRecord& event, std::chrono::system_clock::time_point at);
  void PatchSeries(Series& series);
  void Drain();

  Client& client_;
  std::string controller_;
  std::string instance_;
  WallNow now_;
  size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<EventRecord, std::chrono::system_clock::time_point>> queue_;
  std::map<std::string, Series> series_;  // by dedupe key; only the writer touches it
  std::mutex write_mu_;                   // one writer at a time (thread or Flush)
  EventRecorderStats stats_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace quotient::kubeclient
