// Tells users, in the API, what the scheduler decided — without ever holding up a cycle:
//   - a pod left pending gets PodScheduled=False, reason Unschedulable, and the pending reason as
//     the message (unless its PodGroup says markUnschedulable: false), plus a Warning Event on
//     its PodGroup (reason Unschedulable) — repeats fold into one Event series;
//   - a bound pod gets a Normal Event "Scheduled" ("Successfully assigned ns/pod to node");
//   - an evicted pod gets a Normal Event "Evict" with the action and its reason;
//   - a Queue's status gets allocated, requested (KAI's fields, as resource lists) and fairShare
//     (ours), so users see the fair share without Prometheus.
// Status patches are queued per pod, latest wins, and written by one background thread; a pod
// whose message did not change is not written again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "kubeclient/client.h"
#include "kubeclient/event_recorder.h"

namespace quotient::service {

class StatusWriter {
 public:
  StatusWriter(kubeclient::Client& client, std::string scheduler_name);
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  void Start();
  void Stop();

  // `pod` is ns/name; `group` ns/name of its PodGroup ("" for none).
  void PodPending(const std::string& pod, const std::string& group, const std::string& reason,
                  bool mark_unschedulable);
  void PodBound(const std::string& pod, const std::string& uid, const std::string& node);
  void PodEvicted(const std::string& pod, const std::string& uid, const std::string& action,
                  const std::string& reason);

  // `status_json` is the Queue's whole status object; written when it differs from the last.
  void QueueStatus(const std::string& queue, const std::string& status_json);

  // Forgets what was written for pods not in `still_pending` (bound, deleted) so the memory
  // stays proportional to the pending pods.
  void Retain(const std::set<std::string>& still_pending);

 private:
  void Loop(std::stop_token stop);
  void WritePending(const std::string& pod, const std::string& message);
  void WriteQueue(const std::string& queue, const std::string& status_json);

  kubeclient::Client& client_;
  kubeclient::EventRecorder events_;
  mutable std::mutex mu_;
  std::condition_variable_any ready_;
  std::map<std::string, std::string> queued_;          // pod -> message to write
  std::map<std::string, std::string> written_;         // pod -> message last written
  std::map<std::string, std::string> queued_queues_;   // queue -> status to write
  std::map<std::string, std::string> written_queues_;  // queue -> status last written
  std::jthread thread_;
};

}  // namespace quotient::service
