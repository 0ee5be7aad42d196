// The status objects the scheduler writes, as JSON text (merge patches of the status
// subresource), in KAI's field names so KAI tooling reads them:
//   Queue:    allocated, allocatedNonPreemptible, requested (resource lists), childQueues,
//             fairShare (ours: KAI keeps the fair share in Prometheus only), and conditions
//             [{type: Valid, status, reason, message, lastTransitionTime}] (ours: whether the
//             scheduler uses the queue, and what in its spec it accepted only as KAI does);
//   PodGroup: resourcesStatus {allocated, allocatedNonPreemptible, requested} and
//             schedulingConditions [{type: UnschedulableOnNodePool, nodePool, reason, message,
//             reasons[{reason, message}], transitionID, lastTransitionTime, status}].
// Resource lists use Kubernetes quantity text: GPUs and CPU as "2" or "500m", memory in bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/objects.h"
#include "scheduler/run.h"

namespace quotient::service {

// The queue's `Valid` condition: False (reason Unusable) when the queue and its subtree are left
// out (its parent does not exist, a parent cycle); True with reason AcceptedWithWarnings when
// its spec holds values KAI's CRD admits but rarely means (negative weights or quotas, no
// spec.resources), which are scheduled as KAI schedules them; else True, reason Valid.
// `since` changes only when the rest does, so an unchanged condition is not written again.
struct QueueCondition {
  bool valid = true;
  std::string reason = "Valid";
  std::string message;
  core::Time since{};

  // The condition the report's problems and warnings call for (without `since`).
  static QueueCondition Of(const scheduler::QueueReport& queue);
  bool SameAs(const QueueCondition& o) const {
    return valid == o.valid && reason == o.reason && message == o.message;
  }
};

std::string QueueStatusJson(const scheduler::QueueReport& queue, const QueueCondition& condition);

// Why a PodGroup is not scheduled in its node pool, as KAI's UnschedulableOnNodePool condition.
// `transition_id` and `since` change only when the message does, so an unchanged condition is
// not written again.
struct SchedulingCondition {
  std::string node_pool;  // "" = the default pool, written "default"
  std::vector<std::string> reasons;
  int64_t transition_id = 0;
  core::Time since{};
};

// `condition`: the condition to set; nullopt with `clear_conditions` writes an empty list (the
// group runs), nullopt without it leaves the conditions as they are (KAI does not touch them
// while any pod of the group holds resources).
std::string PodGroupStatusJson(const scheduler::PodGroupReport& group,
                               const std::optional<SchedulingCondition>& condition,
                               bool clear_conditions);

// "OverLimit: queue team ..." -> {"OverLimit", "queue team ..."}; text without a CamelCase
// reason prefix is KAI's catch-all PodSchedulingErrors.
std::pair<std::string, std::string> SplitReason(const std::string& text);

}  // namespace quotient::service
