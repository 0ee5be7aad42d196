// Which running jobs an action may take from, and in what order (kai-reference §2.4, §3.5;
// kai-subtleties §21, §23): preemptible jobs with pods holding resources, never the preemptor;
// ordered by queue — the queue that goes last in the fair-share queue order loses first — then,
// within a queue, lowest priority first, then newest, then by name (last first).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "framework/session.h"

namespace quotient::actions {

// Jobs passing `eligible` (and the common rules above), in victim order.
std::vector<core::Index> VictimJobs(const framework::Session& session, core::Index preemptor,
                                    const std::function<bool(const core::Job&)>& eligible);

// VictimJobs for many preemptors in one action. Jobs are grouped by queue and put in their
// within-queue order once; which jobs have evictable pods and how the queues rank are redone
// only after a commit changed the cluster (Invalidate). A caller that knows which queues can
// give victims passes `queue_eligible` and whole queues are passed over; `limit` keeps only the
// first jobs.
class VictimPool {
 public:
  explicit VictimPool(const framework::Session& session);
  std::vector<core::Index> For(core::Index preemptor,
                               const std::function<bool(const core::Job&)>& eligible,
                               const std::function<bool(core::Index queue)>& queue_eligible = {},
                               size_t limit = SIZE_MAX);
  void Invalidate() { valid_ = false; }

 private:
  void Refresh();
  void Rank();

  const framework::Session& session_;
  std::map<core::Index, std::vector<core::Index>> by_queue_;  // preemptible jobs, queue order
  std::vector<bool> active_;  // by job: has evictable pods (as of the last Refresh)
  // Queues with active jobs, in the order their first active job comes by key (VictimJobs'
  // order of meeting them, which the ranking's choice among ties follows).
  std::vector<core::Index> with_active_;
  std::vector<core::Index> queue_order_;  // with_active_ ranked: the first to lose first
  bool valid_ = false;
  bool ranked_ = false;
};

// Pods a victim can lose: Running, Bound or Binding. Pods allocated earlier in the same cycle
// are not victims (their bind is already decided; evicting them would only undo it).
bool IsEvictableStatus(core::PodStatus s);

// Whether the job has pods that can be evicted: Binding, Bound or Running (not pods allocated
// earlier in this cycle).
bool HasActiveAllocatedPods(const framework::Session& session, const core::Job& job);

}  // namespace quotient::actions
