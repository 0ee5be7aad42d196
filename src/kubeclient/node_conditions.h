// Setting our own condition types on a Node (GPUHealthy, FabricHealthy, ...) without touching
// the kubelet's: a strategic merge patch of status.conditions, which merges by `type`, carrying
// only our conditions (a JSON merge patch would replace the whole list). lastTransitionTime
// changes only when the status flips, as the API conventions require.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "kubeclient/client.h"

namespace quotient::kubeclient {

struct NodeCondition {
  std::string type;
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
};

// Reads the node, then patches `conditions` into its status. Heartbeat time is `now`.
ApiResult<RawObject> SetNodeConditions(Client& client, const std::string& node,
                                       const std::vector<NodeCondition>& conditions,
                                       std::chrono::system_clock::time_point now);

// The patch body alone (for tests and for callers that already hold the node's JSON):
// `current_node_json` supplies the existing conditions' status and lastTransitionTime.
Result<std::string> NodeConditionsPatch(const std::string& current_node_json,
                                        const std::vector<NodeCondition>& conditions,
                                        std::chrono::system_clock::time_point now);

}  // namespace quotient::kubeclient
