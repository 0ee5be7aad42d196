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

}  // namespace quotient::actions
