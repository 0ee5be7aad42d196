// FailedSearches: preemptors whose victim search failed, remembered while the cluster state
// stays the same, so that the next preemptor alike is turned away without searching again.
//
// In a full cluster most preemptors find no scenario, and those of one queue are mostly alike:
// each one reads its queue's victims and tries a few scenarios, evicting and restoring hundreds of
// pods, to learn what the one before it learned. A search depends on the state (nodes, pods,
// shares, budgets: all of it versioned by framework::ClusterState, whose version a failed search
// leaves as it found it) and on the preemptor only through what the key holds: its queue,
// priority and preemptibility, and its tasks' shapes in order (actions::PodShape: node pool,
// request, GPU sharing, tolerations, selectors, node affinity). Victim choice, min-runtime
// protection, quota checks and the action's rule read nothing else of the preemptor. A preemptor
// with pods of its own on nodes, or a task whose shape cannot be shared (pod affinity, host
// ports), gets no key and always searches. Off under reference_search.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/session.h"

namespace quotient::actions {

class FailedSearches {
 public:
  explicit FailedSearches(const framework::Session& session);

  // What decides `job`'s search for `tasks`; empty when the search cannot be shared.
  std::string KeyOf(core::Index job, const std::vector<core::Index>& tasks) const;
  // Whether a search with this key failed in the current state.
  bool KnownToFail(const std::string& key);
  void RecordFailure(std::string key);

 private:
  // Forgets every failure once the state has changed (a commit).
  void Forget();

  const framework::Session& session_;
  bool enabled_ = true;
  uint64_t state_version_ = 0;
  std::set<std::string> failed_;
};

// KAI's scheduling signatures (pkg/scheduler/actions/common/minimal_job_comparison.go,
// MinimalJobRepresentatives; on by default, `--use-scheduling-signatures`): after a job's search
// fails, a later job with the same scheduling constraints (node selector, affinity, tolerations,
// priority class, host ports, per pending pod; not the requests) is searched for only if it is
// easier: fewer pending pods than the failed one, or, pod by pod in ascending order of request,
// one whose request is smaller in no resource larger and in one smaller. The failed job kept is
// the one with the smallest footprint. Reclaim and preempt keep one per queue, consolidation one
// for the action; a commit does not clear them (KAI's do not).
class SmallestFailedJobs {
 public:
  explicit SmallestFailedJobs(const framework::Session& session) : session_(session) {}

  // Whether `job` is to be searched for (KAI's IsEasierToSchedule).
  bool Easier(core::Index job) const;
  // After `job`'s search failed (KAI's UpdateRepresentative).
  void Failed(core::Index job);

 private:
  struct Footprint {
    std::vector<std::vector<int64_t>> requests;  // per pending pod, ascending
  };
  std::string SignatureOf(core::Index job) const;
  Footprint FootprintOf(core::Index job) const;

  const framework::Session& session_;
  std::map<std::string, Footprint> failed_;  // by signature
};

}  // namespace quotient::actions
