// VictimQueue: the order in which one preemptor's search draws its victims, as KAI draws them
// (JobsOrderByQueues in victim mode with GetTasksToEvict, pkg/scheduler/actions/utils and
// api/podgroup_info/eviction_info.go):
//   - Each draw pops the best victim job and takes its next eviction unit: one pod of an elastic
//     surplus (a leaf subgroup holding more pods than its minimum; among several, the subgroup
//     KAI's reverse subgroup order puts first, the most over its minimum), else every pod the job
//     still holds. A job with pods left goes back into the queue as what it now is — so taking
//     one surplus pod from each of two elastic jobs comes before taking a second from either.
//   - The job popped is chosen top-down through the queue tree: at each level the queue the
//     fair-share order would serve last goes first, judged with its victims so far (every job
//     popped from its best leaf queue, plus the next one) taken away, so a queue that has already
//     lost a victim may rank below another; then, within the leaf queue, the job KAI's job order
//     would serve last: lower priority first, then elastic jobs above their minimum, then at it,
//     then below it, then newer first, then the larger uid and key.
//   - Ties KAI leaves to Go's map and heap order are broken by name here.
// Quotient differs on one point on purpose: only pods that were running or bound before the
// cycle are victims (KAI also takes pods allocated or pipelined earlier in the same cycle, undoing
// its own decisions; docs/kai-differences.md).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "actions/victim_order.h"
#include "actions/victim_solver.h"
#include "framework/session.h"

namespace quotient::actions {

class VictimQueue {
 public:
  // `pool` gives each queue's victim jobs in victim order; `queue_eligible` and `eligible` say
  // which queues and jobs this preemptor may take from; `whole_allowed(job)` false keeps a job's
  // last unit (all it still holds) out, leaving only its elastic surplus (min-runtime).
  VictimQueue(const framework::Session& session, VictimPool& pool, core::Index preemptor,
              std::function<bool(core::Index queue)> queue_eligible,
              std::function<bool(const core::Job&)> eligible,
              std::function<bool(core::Index job)> whole_allowed);

  // The next victim unit, nullopt after the last.
  std::optional<VictimUnit> Next();

 private:
  // A victim job as the queue holds it: the pods it still has (KAI's CloneWithTasks).
  struct Entry {
    core::Index job = core::kNone;
    std::vector<core::Index> pods;  // evictable pods not taken yet, in task order
    core::ShareVector allocated;    // what those pods hold (KAI's AllocatedVector)
    int elastic_rank = 0;           // 0 above its minimum, 1 at it, 2 below it
  };
  struct EntryOrder {
    const framework::Session* session;
    bool operator()(const Entry& a, const Entry& b) const;
  };
  // A leaf queue's victims: the pool's jobs not drawn yet (a cursor), and jobs put back.
  struct Leaf {
    const std::vector<core::Index>* jobs = nullptr;
    size_t next = 0;
    std::set<Entry, EntryOrder> returned;
    std::optional<Entry> fresh;          // the cursor's job, looked at
    core::ShareVector popped_allocated;  // every job popped from here, as it was popped
  };

  Entry EntryOf(core::Index job, std::vector<core::Index> pods) const;
  // The leaf's best entry, or nullptr when it has none.
  const Entry* Peek(Leaf& leaf);
  // Whether the queue (a leaf or an inner queue) has a victim, and its best leaf.
  Leaf* BestLeaf(core::Index queue);
  // Takes `entry`'s next unit; what remains goes back into `leaf`.
  std::optional<VictimUnit> TakeUnit(Leaf& leaf, Entry entry);

  const framework::Session& session_;
  VictimPool& pool_;
  core::Index preemptor_;
  std::function<bool(const core::Job&)> eligible_;
  std::function<bool(core::Index)> whole_allowed_;
  std::map<core::Index, Leaf> leaves_;                    // by leaf queue
  std::map<core::Index, std::vector<core::Index>> kids_;  // inner queue -> children with leaves
  std::vector<core::Index> roots_;                        // top-level queues with leaves
};

// KAI's GetTasksToEvict for a job holding `pods` (evictable, in task order): one pod of the
// elastic surplus when there is one, else all of `pods`. `all` says which.
std::vector<core::Index> NextEvictionUnit(const framework::Session& session, core::Index job,
                                          const std::vector<core::Index>& pods, bool& all);

}  // namespace quotient::actions
