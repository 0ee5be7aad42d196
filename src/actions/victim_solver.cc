#include "actions/victim_solver.h"

#include <algorithm>
#include <utility>

#include "actions/job_tasks.h"

namespace quotient::actions {
namespace {

using core::Index;

// Pods a victim can lose: running or bound ones. Pods allocated earlier in this same cycle are
// not victims (their bind is already decided; evicting them would only undo it).
bool IsActiveAllocatedStatus(core::PodStatus s) {
  return s == core::PodStatus::kBinding || s == core::PodStatus::kBound ||
         s == core::PodStatus::kRunning;
}

// Cluster-wide room: what is free or releasing now, per resource the solver checks.
struct Room {
  int64_t gpu_milli = 0;
  int64_t cpu_milli = 0;
};

Room FreeRoom(const framework::Session& session) {
  Room r;
  for (size_t n = 0; n < session.state().node_count(); ++n) {
    const framework::NodeState& node = session.state().node(static_cast<Index>(n));
    if (!session.node(static_cast<Index>(n)).usable) continue;
    for (const framework::DeviceState& d : node.devices) {
      r.gpu_milli += (d.free_milli() + d.releasing_milli).value();
    }
    r.cpu_milli += (node.idle.cpu_milli + node.releasing.cpu_milli).value();
  }
  return r;
}

Room Need(const framework::Session& session, const std::vector<Index>& pods, bool on_node) {
  Room r;
  for (Index p : pods) {
    const core::ShareVector q =
        session.QuotaOf(p, on_node ? session.state().pod(p).node : core::kNone);
    r.gpu_milli += q[core::ShareResource::kGpu].value();
    r.cpu_milli += q[core::ShareResource::kCpu].value();
  }
  return r;
}

class Attempt {
 public:
  Attempt(framework::Session& session, Placer& placer, const SolverSpec& spec)
      : session_(session), placer_(placer), spec_(spec) {}

  // Tries `victims`; on success `statement` holds the scenario (uncommitted) and `scenario`
  // describes it. `with_reasons` writes the final eviction messages.
  bool Run(const std::vector<const VictimUnit*>& victims, framework::Statement& statement,
           Scenario& scenario, const std::set<Index>& moved_hint, bool with_reasons) {
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
    for (Index task : spec_.tasks) {
      FitErrors errors;
      if (!placer_.Place(statement, task, errors)) return false;
    }
    // A preemptor that needed victims waits for them: pipelined, never bound this cycle.
    statement.ConvertAllocatedToPipelined(preemptor_start);
    for (const VictimUnit* unit : victims) {
      const size_t cp = statement.Checkpoint();
      bool all = true;
      for (Index pod : unit->pods) {
        FitErrors errors;
        Placer::Options options;
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
    return !spec_.validate || spec_.validate(scenario);
  }

  bool Works(const std::vector<const VictimUnit*>& victims, Scenario& scenario) {
    framework::Statement statement(session_, spec_.action);
    return Run(victims, statement, scenario, {}, false);  // discarded on scope exit
  }

  // The unit that could not be moved in the last failed run (all_victims_must_move), if any.
  const VictimUnit* TakeUnmovable() { return std::exchange(unmovable_, nullptr); }

 private:
  const VictimUnit* unmovable_ = nullptr;
  framework::Session& session_;
  Placer& placer_;
  const SolverSpec& spec_;
};

// The nodes the preemptor's pods were placed on in a working scenario.
std::set<Index> PreemptorNodes(framework::Session& session, Placer& placer,
                               const SolverSpec& spec, const std::vector<const VictimUnit*>& v) {
  std::set<Index> nodes;
  framework::Statement statement(session, spec.action);
  Scenario scenario;
  Attempt attempt(session, placer, spec);
  if (attempt.Run(v, statement, scenario, {}, false)) {
    for (Index task : spec.tasks) nodes.insert(session.state().pod(task).node);
  }
  return nodes;
}

std::vector<const VictimUnit*> Prune(framework::Session& session, Placer& placer,
                                     const SolverSpec& spec,
                                     std::vector<const VictimUnit*> victims) {
  Attempt attempt(session, placer, spec);
  Scenario scratch;
  // 1. Drop, all at once, units with no pod on a node the preemptor uses.
  const std::set<Index> used = PreemptorNodes(session, placer, spec, victims);
  std::vector<const VictimUnit*> on_used;
  for (const VictimUnit* unit : victims) {
    const bool helps = std::any_of(unit->pods.begin(), unit->pods.end(), [&](Index pod) {
      return used.count(session.state().pod(pod).node) > 0;
    });
    if (helps) on_used.push_back(unit);
  }
  if (!on_used.empty() && on_used.size() < victims.size() && attempt.Works(on_used, scratch)) {
    victims = std::move(on_used);
  }
  // 2. Drop units one by one, the last added first, while the scenario still works.
  constexpr size_t kMaxSingleDrops = 64;
  for (size_t k = victims.size(); k-- > 0 && victims.size() > 1;) {
    if (victims.size() - k > kMaxSingleDrops) break;
    std::vector<const VictimUnit*> fewer = victims;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
    if (attempt.Works(fewer, scratch)) victims = std::move(fewer);
  }
  return victims;
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
      if (IsActiveAllocatedStatus(session.state().pod(p).status)) active.push_back(p);
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
  if (whole_allowed && !core_pods.empty()) units.push_back({job_index, core_pods});
  return units;
}

bool SolveAndCommit(framework::Session& session, Placer& placer, const SolverSpec& spec) {
  if (spec.tasks.empty() || spec.candidates.empty()) return false;
  const Room free = FreeRoom(session);
  const Room need = Need(session, spec.tasks, false);
  Room freed;
  Attempt attempt(session, placer, spec);
  std::vector<const VictimUnit*> victims;
  for (const VictimUnit& unit : spec.candidates) {
    victims.push_back(&unit);
    const Room more = Need(session, unit.pods, true);
    freed.gpu_milli += more.gpu_milli;
    freed.cpu_milli += more.cpu_milli;
    if (free.gpu_milli + freed.gpu_milli < need.gpu_milli ||
        free.cpu_milli + freed.cpu_milli < need.cpu_milli) {
      continue;  // cannot be enough yet
    }
    Scenario scenario;
    if (!attempt.Works(victims, scenario)) {
      // A unit that cannot be moved anywhere can be no part of a pure defragmentation.
      if (const VictimUnit* stuck = attempt.TakeUnmovable()) {
        victims.erase(std::find(victims.begin(), victims.end(), stuck));
        const Room less = Need(session, stuck->pods, true);
        freed.gpu_milli -= less.gpu_milli;
        freed.cpu_milli -= less.cpu_milli;
      }
      continue;
    }
    victims = Prune(session, placer, spec, victims);
    Scenario final_scenario;
    {
      Scenario probe;
      attempt.Works(victims, probe);  // which pods move, for their messages
      framework::Statement statement(session, spec.action);
      if (!attempt.Run(victims, statement, final_scenario, probe.moved_pods, true)) return false;
      statement.Commit();
    }
    return true;
  }
  return false;
}

}  // namespace quotient::actions
