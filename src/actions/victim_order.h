// Which running jobs an action may take from, and in what order (kai-reference §2.4, §3.5;
// kai-subtleties §21, §23): preemptible jobs with pods holding resources, never the preemptor;
// ordered by queue — the queue that goes last in the fair-share queue order loses first — then,
// within a queue, lowest priority first, then newest, then by name (last first).
#pragma once

#include <functional>
#include <vector>

#include "framework/session.h"

namespace quotient::actions {

// Jobs passing `eligible` (and the common rules above), in victim order.
std::vector<core::Index> VictimJobs(const framework::Session& session, core::Index preemptor,
                                    const std::function<bool(const core::Job&)>& eligible);

// VictimJobs for many preemptors in one action: the ordered list of every possible victim is
// computed once and again only after a commit changed the cluster (Invalidate).
class VictimPool {
 public:
  explicit VictimPool(const framework::Session& session) : session_(session) {}
  std::vector<core::Index> For(core::Index preemptor,
                               const std::function<bool(const core::Job&)>& eligible);
  void Invalidate() { valid_ = false; }

 private:
  const framework::Session& session_;
  std::vector<core::Index> all_;
  bool valid_ = false;
};

// Pods a victim can lose: Running, Bound or Binding. Pods allocated earlier in the same cycle
// are not victims (their bind is already decided; evicting them would only undo it).
bool IsEvictableStatus(core::PodStatus s);

// Whether the job has pods that can be evicted: Binding, Bound or Running (not pods allocated
// earlier in this cycle).
bool HasActiveAllocatedPods(const framework::Session& session, const core::Job& job);

}  // namespace quotient::actions
