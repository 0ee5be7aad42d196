// The victim solver shared by reclaim, preempt and consolidation (kai-reference §2.4).
//
// Candidates come as units, in the order an action wants them tried (a whole job, or a single pod
// of an elastic job above its minimum). First, as KAI v0.17's first scenario generator
// (sg-nodelocalgreedy) under its probing of the preemptor's pods, the solver tries node-local
// scenarios: the victims of the jobs on one node of the latest unit (docs/design/preemption.md,
// "The solver"). When none works, it accumulates: it adds units one at a time; once the freed
// resources could cover the preemptor (a cheap cluster-wide check), it tries the scenario in a
// statement as KAI's solver does (pkg/scheduler/actions/common/action.go,
// TryToVirtuallyAllocatePreemptorAndGetVictims): evict the units, then place the preemptor and
// every victim job again, pipelined, in allocate's job order. A victim placed back on its own
// node is unevicted (no victim after all), one placed elsewhere is moved, one that fits nowhere
// stays evicted; a victim job going first can take back the room the preemptor needed. Then the
// action's rule validates the scenario. The first scenario that works is then pruned, so no
// victim is evicted that the preemptor does not need:
//   1. units none of whose pods sit on a node the preemptor was placed on are dropped (their
//      eviction helped nobody), if the scenario still works without them;
//   2. then each remaining unit, last added first, is dropped if the scenario still works.
// Only the pruned scenario is committed. This is how we avoid KAI's disproportionate evictions
// (kai-reference §13.5: 376 GPUs evicted to place 48): KAI keeps every victim it accumulated.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actions/placer.h"

namespace quotient::actions {

struct VictimUnit {
  core::Index job = core::kNone;
  std::vector<core::Index> pods;  // evicted together
  // The unit is all the job still held (not an elastic surplus): evicting it evicts the job's
  // earlier units too.
  bool rest = false;
};

struct Scenario {
  std::vector<core::Index> tasks;  // the preemptor's pods placed (all, or the first k of a probe)
  std::vector<const VictimUnit*> victims;
  std::set<core::Index> moved_pods;  // victim pods placed again elsewhere (another node, or
                                     // another GPU of their own node)
  std::set<core::Index> kept_pods;   // victim pods placed back where they were: not evicted
};

struct SolverSpec {
  std::string action;
  core::Index preemptor = core::kNone;  // job
  std::vector<core::Index> tasks;       // its pods to place
  // The next victim job in the order to try (kNone after the last), read and expanded into
  // units only as the search reaches it: most searches stop long before the end.
  std::function<core::Index()> next_victim_job;
  std::function<std::vector<VictimUnit>(core::Index job)> units_of;
  // Or the next victim unit itself (a VictimQueue, KAI's order across jobs and queues); when
  // set, next_victim_job and units_of are not used. nullopt after the last.
  std::function<std::optional<VictimUnit>()> next_victim_unit;
  // At most what every victim the action may take holds, GPU and CPU (from the queues'
  // preemptible allocation); when free room plus that cannot cover the preemptor, no victim
  // list can, and the search ends before reading any. Unset: no bound known.
  struct Holding {
    int64_t gpu_milli = 0;
    int64_t cpu_milli = 0;
  };
  std::optional<Holding> victims_hold_at_most;
  bool all_victims_must_move = false;  // consolidation: pure defragmentation
  // Called once before the first scenario is judged or tried, while the session is still as
  // the action left it (reclaim copies the shares its rule compares against then: most
  // searches end before any try, and the copy is per preemptor). Empty = nothing to do.
  std::function<void()> before_first_try;
  // The action's rule for a scenario (reclaim's fairness, ...); empty = always valid.
  std::function<bool(const Scenario&)> validate;
  // The eviction message for a victim pod that is not moved.
  std::function<std::string(core::Index pod)> eviction_reason;
  // The message for a victim pod that is moved to another node.
  std::function<std::string(core::Index pod)> move_reason;
};

// Splits a victim job into units: an elastic job above its gang minimum gives its surplus pods
// one by one (reverse task order, i.e. the last to be placed goes first), then the rest as one
// unit; any other job is one unit. `whole_allowed` false keeps only the surplus pods (min-runtime
// protection of an elastic job).
std::vector<VictimUnit> VictimUnitsOf(const framework::Session& session, core::Index job,
                                      bool whole_allowed);

// Solves and, on success, commits the scenario (evictions, moves, the preemptor's pipelined
// pods). Returns false, changing nothing, when no scenario works.
bool SolveAndCommit(framework::Session& session, Placer& placer, const SolverSpec& spec);

}  // namespace quotient::actions
