// Tells users, in the API, what the scheduler decided — without ever holding up a cycle:
//   - a pod left pending gets PodScheduled=False, reason Unschedulable, and the pending reason as
//     the message (unless its PodGroup says markUnschedulable: false), plus a Warning Event on
//     its PodGroup (reason Unschedulable) — repeats fold into one Event series;
//   - a bound pod gets a Normal Event "Scheduled" ("Successfully assigned ns/pod to node");
//   - an evicted pod gets a Normal Event "Evict" with the action and its reason;
//   - a pipelined pod gets a Normal Event "Pipelined"; a PodGroup gets NotReady and StaleJob
//     Events as KAI's do; a Queue gets a Warning Event (QueueSpecWarning, QueueUnusable) when
//     its Valid condition changes to say something;
//   - a Queue's and a PodGroup's status subresource get what the cycle computed (see
//     service/status_json.h), written only when it changed;
//   - PodGroup annotations the cycle changed (last-start, stale-since timestamps) are patched.
// Patches are queued per object, latest wins, and written by one background thread; an object
// whose status did not change is not written again.
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
  // A Warning Event "FailedBinding" on the pod with why its bind (or what comes before it, for a
  // fractional pod) failed; it is retried after a back-off.
  void PodBindFailed(const std::string& pod, const std::string& uid, const std::string& why);
  void PodEvicted(const std::string& pod, const std::string& uid, const std::string& action,
                  const std::string& reason);

  void PodPipelined(const std::string& pod, const std::string& uid, const std::string& node,
                    const std::string& reason);
  // An Event on a PodGroup (ns/name).
  void PodGroupEvent(const std::string& group, const std::string& type, const std::string& reason,
                     const std::string& note);
  // An Event on a Queue (cluster-scoped; Events about it go to the default namespace).
  void QueueEvent(const std::string& queue, const std::string& type, const std::string& reason,
                  const std::string& note);

  // `status_json` is the fields of the object's status to set (a merge patch of the status
  // subresource); written when it differs from what was last written for the object.
  void QueueStatus(const std::string& queue, const std::string& status_json);
  void PodGroupStatus(const std::string& group, const std::string& status_json);
  // A merge patch of a PodGroup's metadata.annotations (`annotations_json`: key -> value|null).
  void PodGroupAnnotations(const std::string& group, const std::string& annotations_json);

  // Forgets what was written for pods not in `still_pending` (bound, deleted) so the memory
  // stays proportional to the pending pods.
  void Retain(const std::set<std::string>& still_pending);

 private:
  // One object's pending patch: which resource, which subresource ("" = the object itself).
  struct ObjectPatch {
    kubeclient::Resource resource;
    std::string key;  // ns/name or name
    std::string subresource;
    std::string patch;     // the merge patch body
    std::string remember;  // what counts as "already written" for this object
  };
  void Enqueue(ObjectPatch patch);
  void Loop(std::stop_token stop);
  void WritePending(const std::string& pod, const std::string& message);
  void WriteObject(const ObjectPatch& patch);

  kubeclient::Client& client_;
  kubeclient::EventRecorder events_;
  mutable std::mutex mu_;
  std::condition_variable_any ready_;
  std::map<std::string, std::string> queued_;   // pod -> message to write
  std::map<std::string, std::string> written_;  // pod -> message last written
  // Queue and PodGroup patches, by "<plural>/<key>[/<subresource>]".
  std::map<std::string, ObjectPatch> queued_objects_;
  std::map<std::string, std::string> written_objects_;  // same key -> `remember` last written
  std::jthread thread_;
};

}  // namespace quotient::service
