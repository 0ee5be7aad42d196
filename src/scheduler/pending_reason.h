// Why a job's pods are still waiting, in words a person can act on. The first that applies:
//   1. the pod itself is invalid (bad annotation, unknown subgroup);
//   2. the job is invalid or its queue is unusable (QueueDoesNotExist, ...);
//   3. the gang is not ready: fewer pods exist than it needs;
//   4. what the actions recorded in this cycle;
//   5. the queue checks: OverLimit, NonPreemptibleOverQuota;
//   6. allocate did not run, or did not try the job (queueDepthPerAction).
#pragma once

#include <string>

#include "core/snapshot.h"
#include "framework/session.h"

namespace quotient::scheduler {

std::string PendingReason(const framework::Session& session, const core::Job& job,
                          core::Index job_index, const core::Pod& pod);

}  // namespace quotient::scheduler
