#include "actions/victim_solver.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "actions/job_tasks.h"
#include "actions/victim_order.h"
#include "actions/victim_room.h"

namespace quotient::actions {
namespace {

using core::Index;
using solver::FreeRoom;
using solver::Need;
using solver::NeedsGpuDevices;
using solver::NodeRoom;
using solver::Room;

// Moves cost a placement per victim pod: scenarios with more victim units are tried without.
constexpr size_t kMaxUnitsForMoves = 16;

class Attempt {
 public:
  Attempt(framework::Session& session, Placer& placer, const SolverSpec& spec)
      : session_(session), placer_(placer), spec_(spec) {}

  // Tries `victims`; on success `statement` holds the scenario (uncommitted) and `scenario`
  // describes it. `with_reasons` writes the final eviction messages.
  bool Run(const std::vector<const VictimUnit*>& victims, framework::Statement& statement,
           Scenario& scenario, const std::set<Index>& moved_hint, bool with_reasons,
           bool try_moves = true) {
    scenario.victims = victims;
    scenario.moved_pods.clear();
    for (const VictimUnit* unit : victims) {
      for (Index pod : unit->pods) {
        std::string reason;
        if (with_reasons) {
          reason = moved_hint.count(pod) ? spec_.move_reason(pod) : spec_.eviction_reason(pod);
        }
        statement.Evict(pod, std::move(reason));
      }
    }
    const size_t preemptor_start = statement.Checkpoint();
    // Only nodes with GPU room for the smallest GPU pod can take any of the preemptor's GPU pods.
    const std::vector<Index> roomy = NodesWithGpuRoom();
    for (Index task : spec_.tasks) {
      FitErrors errors;
      Placer::Options options;
      options.explain = false;
      if (NeedsGpuDevices(session_.pod(task))) options.only_nodes = &roomy;
      if (!placer_.Place(statement, task, errors, options)) return false;
    }
    // A preemptor that needed victims waits for them: pipelined, never bound this cycle.
    statement.ConvertAllocatedToPipelined(preemptor_start);
    for (const VictimUnit* unit : victims) {
      if (!try_moves) break;
      const size_t cp = statement.Checkpoint();
      bool all = true;
      for (Index pod : unit->pods) {
        FitErrors errors;
        Placer::Options options;
        options.explain = false;
        options.pipeline_only = true;
        options.exclude_node = session_.state().pod(pod).node;
        if (!placer_.Place(statement, pod, errors, options)) {
          all = false;
          break;
        }
      }
      if (all) {
        scenario.moved_pods.insert(unit->pods.begin(), unit->pods.end());
      } else {
        statement.Rollback(cp);
        if (spec_.all_victims_must_move) {
          unmovable_ = unit;
          return false;
        }
      }
    }
    placed_ = true;
    return !spec_.validate || spec_.validate(scenario);
  }

  // Whether the scenario works (the statement is discarded on scope exit). Searching without
  // moves is enough where moves are optional: a scenario valid with every victim evicted stays
  // valid when some of them are moved instead (they then cost their queue less).
  bool Works(const std::vector<const VictimUnit*>& victims, Scenario& scenario, bool try_moves) {
    placed_ = false;
    framework::Statement statement(session_, spec_.action);
    return Run(victims, statement, scenario, {}, false, try_moves);
  }
  // Searches without moves first (cheap); when the preemptor fits but the rule rejects the
  // scenario, tries again with moves, since a moved victim costs its queue nothing and can make
  // the scenario fair.
  bool Works(const std::vector<const VictimUnit*>& victims, Scenario& scenario) {
    if (Works(victims, scenario, spec_.all_victims_must_move)) return true;
    if (spec_.all_victims_must_move || !placed_ || !spec_.validate) return false;
    if (victims.size() > kMaxUnitsForMoves) return false;
    return Works(victims, scenario, true);
  }

  // Whether the last failed try placed the preemptor and was refused by the action's rule. The
  // rule judges victims in order, so a longer list with the same start is refused too.
  bool RuleRefused() const { return placed_; }

  // The unit that could not be moved in the last failed run (all_victims_must_move), if any.
  const VictimUnit* TakeUnmovable() { return std::exchange(unmovable_, nullptr); }

 private:
  // In node order, as the placer's reference search reads them; from the state's nodes ordered
  // by room, so the cost is the nodes listed, not the cluster.
  std::vector<Index> NodesWithGpuRoom() const {
    int64_t smallest = 0;
    for (Index t : spec_.tasks) {
      const int64_t g = session_.QuotaOf(t, core::kNone)[core::ShareResource::kGpu].value();
      if (g > 0 && NeedsGpuDevices(session_.pod(t))) {
        smallest = smallest == 0 ? g : std::min(smallest, g);
      }
    }
    const framework::ClusterState::RoomOrder& order = session_.state().gpu_room_order();
    std::vector<Index> out;
    for (auto it = order.lower_bound({smallest, core::kNone}); it != order.end(); ++it) {
      out.push_back(it->second);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  const VictimUnit* unmovable_ = nullptr;
  bool placed_ = false;  // the last run placed the preemptor (a failure was the rule's)
  framework::Session& session_;
  Placer& placer_;
  const SolverSpec& spec_;
};

// Where a working scenario put the preemptor, and the GPU room each node still has after it
// (free plus releasing, with the scenario's victims evicted and the preemptor placed).
struct Footprint {
  std::set<Index> preemptor_nodes;
  std::vector<int64_t> leftover_gpu_milli;  // by node
};

Footprint FootprintOf(framework::Session& session, Placer& placer, const SolverSpec& spec,
                      const std::vector<const VictimUnit*>& victims) {
  Footprint f;
  Attempt attempt(session, placer, spec);
  for (const bool moves : {spec.all_victims_must_move, true}) {
    framework::Statement statement(session, spec.action);
    Scenario scenario;
    if (!attempt.Run(victims, statement, scenario, {}, false, moves)) continue;
    for (Index task : spec.tasks) f.preemptor_nodes.insert(session.state().pod(task).node);
    f.leftover_gpu_milli.resize(session.state().node_count());
    for (size_t n = 0; n < f.leftover_gpu_milli.size(); ++n) {
      f.leftover_gpu_milli[n] = session.state().gpu_room_milli(static_cast<Index>(n));
    }
    break;
  }
  return f;
}

std::vector<const VictimUnit*> Prune(framework::Session& session, Placer& placer,
                                     const SolverSpec& spec,
                                     std::vector<const VictimUnit*> victims) {
  Attempt attempt(session, placer, spec);
  Scenario scratch;
  // 1. Drop, all at once, units with no pod on a node the preemptor uses.
  Footprint footprint = FootprintOf(session, placer, spec, victims);
  std::vector<const VictimUnit*> on_used;
  for (const VictimUnit* unit : victims) {
    const bool helps = std::any_of(unit->pods.begin(), unit->pods.end(), [&](Index pod) {
      return footprint.preemptor_nodes.count(session.state().pod(pod).node) > 0;
    });
    if (helps) on_used.push_back(unit);
  }
  if (!on_used.empty() && on_used.size() < victims.size() && attempt.Works(on_used, scratch)) {
    victims = std::move(on_used);
    footprint = FootprintOf(session, placer, spec, victims);
  }
  // 2. Drop units one by one, the last added first, while the scenario still works. Only units
  // whose GPUs the scenario leaves unused on their node are worth a try (cheap to know, and it
  // keeps pruning linear in the victims the preemptor really needs).
  constexpr size_t kMaxSingleDrops = 64;
  size_t tries = 0;
  for (size_t k = victims.size(); k-- > 0 && victims.size() > 1 && tries < kMaxSingleDrops;) {
    bool spare = !footprint.leftover_gpu_milli.empty();
    for (Index pod : victims[k]->pods) {
      const Index node = session.state().pod(pod).node;
      const int64_t gpu = session.QuotaOf(pod, node)[core::ShareResource::kGpu].value();
      spare = spare && node != core::kNone &&
              footprint.leftover_gpu_milli[static_cast<size_t>(node)] >= gpu;
    }
    if (!spare) continue;
    ++tries;
    std::vector<const VictimUnit*> fewer = victims;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
    if (attempt.Works(fewer, scratch)) {
      victims = std::move(fewer);
      footprint = FootprintOf(session, placer, spec, victims);
    }
  }
  return victims;
}

// A job whose core unit is evicted loses all of it: pruning must not leave one of its surplus pods
// running below the gang minimum, so surplus units of such jobs come back, in candidate order.
std::vector<const VictimUnit*> KeepJobsWhole(const std::deque<VictimUnit>& candidates,
                                             std::vector<const VictimUnit*> victims) {
  std::set<Index> whole_jobs;
  for (const VictimUnit* unit : victims) {
    if (unit->rest) whole_jobs.insert(unit->job);
  }
  std::vector<const VictimUnit*> out;
  for (const VictimUnit& c : candidates) {
    const bool chosen = std::find(victims.begin(), victims.end(), &c) != victims.end();
    if (chosen || whole_jobs.count(c.job)) out.push_back(&c);
  }
  return out;
}

}  // namespace

std::vector<VictimUnit> VictimUnitsOf(const framework::Session& session, Index job_index,
                                      bool whole_allowed) {
  const core::Job& job = session.job(job_index);
  std::vector<VictimUnit> units;
  std::vector<Index> core_pods;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    std::vector<Index> active;
    for (Index p : sg.pods) {
      const framework::PodState& state = session.state().pod(p);
      if (IsEvictableStatus(state.status) && state.node != core::kNone) active.push_back(p);
    }
    // Placement order within the subgroup; the surplus beyond the minimum goes first, last
    // placed first.
    std::sort(active.begin(), active.end(),
              [&](Index a, Index b) { return TaskBefore(session.pod(a), session.pod(b)); });
    const size_t keep = std::min(active.size(), static_cast<size_t>(sg.min_member));
    for (size_t k = active.size(); k-- > keep;) units.push_back({job_index, {active[k]}});
    core_pods.insert(core_pods.end(), active.begin(),
                     active.begin() + static_cast<std::ptrdiff_t>(keep));
  }
  if (whole_allowed && !core_pods.empty()) {
    // Evicted in reverse task order, as KAI does (the first placed goes last).
    std::reverse(core_pods.begin(), core_pods.end());
    units.push_back({job_index, core_pods, true});
  }
  return units;
}

bool SolveAndCommit(framework::Session& session, Placer& placer, const SolverSpec& spec) {
  if (spec.tasks.empty()) return false;
  std::deque<VictimUnit> candidates;  // stable addresses: victims point into it
  size_t next_unit = 0;
  const auto next = [&]() -> const VictimUnit* {
    if (spec.next_victim_unit && next_unit == candidates.size()) {
      std::optional<VictimUnit> unit = spec.next_victim_unit();
      if (!unit) return nullptr;
      candidates.push_back(std::move(*unit));
    }
    while (next_unit == candidates.size()) {
      const Index job = spec.next_victim_job();
      if (job == core::kNone) return nullptr;
      for (VictimUnit& u : spec.units_of(job)) candidates.push_back(std::move(u));
    }
    return &candidates[next_unit++];
  };
  const bool shortcuts = !session.config().reference_search;
  const Room free = FreeRoom(session);
  const Room need = Need(session, spec.tasks, false);
  if (spec.victims_hold_at_most && shortcuts &&
      (free.gpu_milli + spec.victims_hold_at_most->gpu_milli < need.gpu_milli ||
       free.cpu_milli + spec.victims_hold_at_most->cpu_milli < need.cpu_milli)) {
    return false;  // the loop below would read every victim and never pass its room check
  }
  NodeRoom rooms(session, spec.tasks);
  Room freed;
  Attempt attempt(session, placer, spec);
  std::vector<const VictimUnit*> victims;
  int64_t slots_at_last_failure = -1;
  // PodDisruptionBudgets: victims chosen so far, per budget. A unit that would take a budget
  // below zero is passed over, and with it the rest of its job (a job is evicted whole or not
  // at all, so its core unit cannot go once one of its surplus pods is protected).
  std::map<Index, int32_t> budget_taken;
  std::set<Index> protected_jobs;
  bool prepared = false;
  const auto prepare = [&] {
    if (!prepared && spec.before_first_try) spec.before_first_try();
    prepared = true;
  };
  const auto take_budget = [&](const VictimUnit& unit, int32_t sign) {
    for (Index pod : unit.pods) {
      for (Index b : session.pod(pod).budgets) budget_taken[b] += sign;
    }
  };
  while (const VictimUnit* candidate = next()) {
    const VictimUnit& unit = *candidate;
    if (protected_jobs.count(unit.job) ||
        !session.WithinDisruptionBudgets(unit.pods, budget_taken)) {
      protected_jobs.insert(unit.job);
      continue;
    }
    take_budget(unit, 1);
    victims.push_back(&unit);
    const Room more = Need(session, unit.pods, true);
    freed.gpu_milli += more.gpu_milli;
    freed.cpu_milli += more.cpu_milli;
    rooms.Free(unit);
    if (free.gpu_milli + freed.gpu_milli < need.gpu_milli ||
        free.cpu_milli + freed.cpu_milli < need.cpu_milli || !rooms.CouldFit()) {
      continue;  // cannot be enough yet
    }
    // After a failed try, wait until the victims at least double the room for the preemptor's
    // pods (a handful of tries per preemptor; pruning trims any excess victims afterwards).
    if (slots_at_last_failure >= 0 &&
        rooms.Slots() < 2 * std::max<int64_t>(1, slots_at_last_failure)) {
      continue;
    }
    prepare();  // a scenario is about to be judged
    // The action's rule judges victims in order, so when it refuses these victims (too many to
    // try moves for) it refuses every longer list too: no scenario is left to find, and the
    // costly try (evict them all, place the preemptor) can be skipped.
    if (spec.validate && !spec.all_victims_must_move && victims.size() > kMaxUnitsForMoves &&
        shortcuts) {
      Scenario unmoved;
      unmoved.victims = victims;
      if (!spec.validate(unmoved)) return false;
    }
    Scenario scenario;
    if (!attempt.Works(victims, scenario)) {
      if (attempt.RuleRefused() && !spec.all_victims_must_move) return false;
      slots_at_last_failure = rooms.Slots();
      // A unit that cannot be moved anywhere can be no part of a pure defragmentation.
      if (const VictimUnit* stuck = attempt.TakeUnmovable()) {
        victims.erase(std::find(victims.begin(), victims.end(), stuck));
        const Room less = Need(session, stuck->pods, true);
        freed.gpu_milli -= less.gpu_milli;
        freed.cpu_milli -= less.cpu_milli;
        rooms.Unfree(*stuck);
        take_budget(*stuck, -1);
        slots_at_last_failure = -1;
      }
      continue;
    }
    victims = KeepJobsWhole(candidates, Prune(session, placer, spec, victims));
    Scenario final_scenario;
    {
      Scenario probe;
      attempt.Works(victims, probe, true);  // which pods move, for their messages
      framework::Statement statement(session, spec.action);
      if (!attempt.Run(victims, statement, final_scenario, probe.moved_pods, true)) return false;
      statement.Commit();
    }
    for (const VictimUnit* chosen : victims) session.SpendDisruptions(chosen->pods);
    return true;
  }
  return false;
}

}  // namespace quotient::actions
