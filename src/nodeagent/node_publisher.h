// What the node agent writes on its Node: the eight fault conditions (status.conditions, a
// strategic-merge patch keyed by type, so the kubelet's conditions and anyone else's are never
// touched), the per-GPU health annotation the scheduler reads (core/node_health.h), and Events
// for signals that are not conditions.
//
// Writes only what changed: a condition's status, reason or message, or the annotation. A
// heartbeat (lastHeartbeatTime) is written at most every `heartbeat`, so a fleet of agents polling
// every 30 s does not write every Node every 30 s.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "kubeclient/client.h"
#include "kubeclient/event_recorder.h"
#include "nodehealth/evaluate.h"

namespace quotient::nodeagent {

class NodePublisher {
 public:
  NodePublisher(kubeclient::Client& client, std::string node_name,
                std::chrono::seconds heartbeat = std::chrono::minutes(5));
  ~NodePublisher();

  // Patches what changed since the last successful publish; errors name the node and the API's
  // answer (the agent retries at its next poll). `now_s`: seconds since the epoch.
  Status Publish(const nodehealth::Evaluation& evaluation, int64_t now_s);

  // When the remediator's validation of this node passed (seconds since the epoch), read from
  // its record on the Node (remediation/record_codec.h: holdDownSince); nullopt while there is
  // none. Sticky faults (XIDs) clear only by a reboot or by this: the remediator's hold-down
  // would otherwise see a repaired GPU still reported broken.
  Result<std::optional<int64_t>> ValidationPassedAt();

  // The value of one of the Node's labels, nullopt when it has none.
  Result<std::optional<std::string>> Label(const std::string& key);

  // The conditions as the patch carries them (for tests and --dry-run output).
  static std::string ConditionsPatch(const nodehealth::Evaluation& evaluation, int64_t now_s);
  // The quotient.dev/gpu-health value: the unhealthy GPUs, and the fault reasons confined to
  // GPUs (core/node_health.h).
  static std::string GpuHealthValue(const nodehealth::Evaluation& evaluation);

 private:
  kubeclient::Client& client_;
  std::string node_;
  std::chrono::seconds heartbeat_;
  std::unique_ptr<kubeclient::EventRecorder> events_;
  std::string uid_;                             // the Node's, for Events (read once)
  std::map<std::string, std::string> written_;  // condition type -> "status|reason|message"
  std::string annotation_;                      // the gpu-health value last written
  int64_t last_heartbeat_s_ = 0;
};

}  // namespace quotient::nodeagent
