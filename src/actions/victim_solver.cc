#include "actions/victim_solver.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/victim_order.h"
#include "actions/victim_room.h"
#include "fairshare/capacity.h"

namespace quotient::actions {
namespace {

using core::Index;
using solver::FreeRoom;
using solver::Need;
using solver::NeedsGpuDevices;
using solver::NodeRoom;
using solver::Room;

// With more victim units than this, a try of reclaim or preempt does not place the victims again
// (KAI does, within its search budgets): they all stay evicted. Placing them again costs a
// placement per victim pod, and tries are repeated as victims are added; with hundreds of victims
// a cycle would take minutes. Consolidation, which needs every victim moved, always places them
// again (it takes at most max_consolidation_preemptees jobs). Beyond this count a list the
// action's rule refuses is refused whatever the try, so it is not tried.
constexpr size_t kMaxUnitsPlacedAgain = 16;

class Attempt {
 public:
  // `requests`: the other jobs' requests, shared by the attempts of one search (optional).
  Attempt(framework::Session& session, Placer& placer, const SolverSpec& spec,
          const std::vector<Index>* feasible = nullptr, RequestCache* requests = nullptr)
      : session_(session),
        placer_(placer),
        spec_(spec),
        feasible_(feasible),
        requests_(requests != nullptr ? requests : &own_requests_) {}

  // Tries `victims` as KAI's solver does (pkg/scheduler/actions/common/action.go,
  // TryToVirtuallyAllocatePreemptorAndGetVictims): evicts them all, then places the preemptor
  // and the victim jobs again, pipelined, in allocate's job order; a victim job that goes first
  // can take its room back and leave none for the preemptor. A victim pod placed back on its own
  // node is unevicted (it keeps running: no victim), one placed elsewhere is moved, one that
  // fits nowhere stays evicted. On success `statement` holds the scenario (uncommitted) and
  // `scenario` describes it. `with_reasons` writes the final eviction messages.
  bool Run(const std::vector<const VictimUnit*>& victims, framework::Statement& statement,
           Scenario& scenario, const std::set<Index>& moved_hint, bool with_reasons) {
    scenario.tasks = spec_.tasks;
    scenario.victims = victims;
    scenario.moved_pods.clear();
    scenario.kept_pods.clear();
    placed_ = false;
    VirtuallyPending evicted;
    std::map<Index, framework::PodState> home;  // victim pod -> where it was
    for (const VictimUnit* unit : victims) {
      for (Index pod : unit->pods) {
        std::string reason;
        if (with_reasons) {
          reason = moved_hint.count(pod) ? spec_.move_reason(pod) : spec_.eviction_reason(pod);
        }
        home[pod] = session_.state().pod(pod);
        statement.Evict(pod, std::move(reason));
        evicted.insert(pod);
      }
    }
    if (!spec_.all_victims_must_move && victims.size() > kMaxUnitsPlacedAgain) {
      if (!PlacePreemptor(statement)) return false;
      placed_ = true;
      return !spec_.validate || spec_.validate(scenario);
    }
    std::set<Index> victim_jobs;
    for (const VictimUnit* unit : victims) victim_jobs.insert(unit->job);
    std::vector<Index> nodes;  // KAI's feasible nodes plus the victims' nodes
    if (feasible_ != nullptr) {
      nodes = *feasible_;
      for (const auto& [pod, was] : home) nodes.push_back(was.node);
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    }
    std::vector<Index> jobs(victim_jobs.begin(), victim_jobs.end());
    jobs.push_back(spec_.preemptor);
    JobQueue order(session_, jobs, &evicted, requests_);
    // The other jobs are passed over (KAI pops them and does nothing), so the order ends with
    // the last of these.
    size_t left = jobs.size();
    while (left > 0) {
      const std::optional<Index> job = order.Pop(session_);
      if (!job) break;
      if (*job == spec_.preemptor) {
        --left;
        if (!PlacePreemptor(statement)) return false;
        placed_ = true;
      } else if (victim_jobs.count(*job)) {
        --left;
        PlaceVictimJob(statement, *job, evicted, home, feasible_ ? &nodes : nullptr);
      }
    }
    if (!placed_) return false;
    for (const VictimUnit* unit : victims) {
      bool any_evicted = false;
      for (Index pod : unit->pods) {
        const framework::PodState& now = session_.state().pod(pod);
        if (now.status == core::PodStatus::kReleasing) {
          any_evicted = true;
        } else if (now.node == home[pod].node && now.status == home[pod].status) {
          scenario.kept_pods.insert(pod);
        } else {
          scenario.moved_pods.insert(pod);
        }
      }
      if (any_evicted && spec_.all_victims_must_move) {
        unmovable_ = unit;
        placed_ = false;
        return false;
      }
    }
    return !spec_.validate || spec_.validate(scenario);
  }

  // Whether the scenario works (the statement is discarded on scope exit).
  bool Works(const std::vector<const VictimUnit*>& victims, Scenario& scenario) {
    framework::Statement statement(session_, spec_.action);
    return Run(victims, statement, scenario, {}, false);
  }

  // Whether the preemptor's pods fit once `victims` are evicted and none is placed again: a
  // necessary condition for Works (victims placed again only take room), at the cost of placing
  // the preemptor alone.
  bool PreemptorFits(const std::vector<const VictimUnit*>& victims) {
    framework::Statement statement(session_, spec_.action);
    for (const VictimUnit* unit : victims) {
      for (Index pod : unit->pods) statement.Evict(pod, {});
    }
    return PlacePreemptor(statement);
  }

  // Whether the last failed try placed the preemptor and was refused by the action's rule. The
  // rule judges victims in order, so a longer list with the same start is refused too.
  bool RuleRefused() const { return placed_; }

  // The unit that could not be moved in the last failed run (all_victims_must_move), if any.
  const VictimUnit* TakeUnmovable() { return std::exchange(unmovable_, nullptr); }

 private:
  // The preemptor's pods, all or none (KAI's AllocateJob with isPipelineOnly): a preemptor that
  // needed victims waits for them, pipelined, never bound this cycle.
  bool PlacePreemptor(framework::Statement& statement) {
    const core::Job& job = session_.job(spec_.preemptor);
    if (!fairshare::CheckJobOverQueueCapacity(session_.shares(), job.queue,
                                              CapacityCheckRequestOf(session_, spec_.tasks),
                                              job.preemptible)
             .fits) {
      return false;
    }
    const size_t preemptor_start = statement.Checkpoint();
    // Only nodes with GPU room for the smallest GPU pod can take any of the preemptor's GPU pods.
    const std::vector<Index> roomy = NodesWithGpuRoom();
    for (Index task : spec_.tasks) {
      FitErrors errors;
      Placer::Options options;
      options.explain = false;
      // Pipelined from the start: charged to what releasing pods give back first, as KAI
      // charges a Pipelined task, so that the free room stays for the victims placed again.
      options.pipeline_only = true;
      if (NeedsGpuDevices(session_.pod(task))) options.only_nodes = &roomy;
      if (!placer_.Place(statement, task, errors, options)) return false;
    }
    statement.ConvertAllocatedToPipelined(preemptor_start);
    return true;
  }

  // A victim job asks for its evicted pods back as allocate would place them (KAI's
  // GetTasksToAllocate with isRealAllocation false: a gang its minimum, an elastic job one pod),
  // pipelined, all or none; those it does not get back stay evicted.
  void PlaceVictimJob(framework::Statement& statement, Index job_index,
                      const VirtuallyPending& evicted,
                      const std::map<Index, framework::PodState>& home,
                      const std::vector<Index>* nodes) {
    const core::Job& job = session_.job(job_index);
    const TasksToAllocate tasks = SelectTasks(session_, job, &evicted);
    if (tasks.pods.empty()) return;
    if (!fairshare::CheckJobOverQueueCapacity(session_.shares(), job.queue,
                                              CapacityCheckRequestOf(session_, tasks.pods),
                                              job.preemptible)
             .fits) {
      return;
    }
    const size_t cp = statement.Checkpoint();
    for (Index pod : tasks.pods) {
      auto it = home.find(pod);
      if (!PlaceVictimPod(statement, pod, it == home.end() ? nullptr : &it->second, nodes)) {
        statement.Rollback(cp);
        return;
      }
    }
  }

  // Places one pod of a victim job, pipelined, as KAI's Statement.Pipeline does
  // (pkg/scheduler/framework/statement.go): on another node it is moved; back on its own node
  // it is unevicted (it keeps running on its own devices), except that a shared-GPU pod placed
  // in other GPU groups is moved there (gpuPlacementChanged) — on another of the node's GPUs, or
  // in a new group on its own GPU when it was alone there (a group whose pods are all releasing
  // cannot be joined). A whole-GPU pod whose own devices pods pipelined in this try took gets
  // them back, those pods moving to free devices of the node; one whose own devices still have
  // no room (KAI counts whole GPUs per node, not per device) keeps the devices it was placed on.
  bool PlaceVictimPod(framework::Statement& statement, Index pod, const framework::PodState* home,
                      const std::vector<Index>* nodes) {
    FitErrors errors;
    Placer::Options options;
    options.explain = false;
    options.pipeline_only = true;
    options.only_nodes = nodes;
    const size_t cp = statement.Checkpoint();
    if (!placer_.Place(statement, pod, errors, options)) return false;
    const framework::PodState& now = session_.state().pod(pod);
    if (home == nullptr || now.node != home->node) return true;
    if (session_.pod(pod).gpu.is_shared() && now.gpu_groups != home->gpu_groups) return true;
    statement.Rollback(cp);
    // Back on its own node it keeps running on its own devices, also when a pod pipelined in
    // this try took them: that pod moves to free devices of the node instead (KAI counts whole
    // GPUs per node, so for KAI the victim simply stays).
    if (statement.UnevictMovingPipelined(pod)) return true;
    const std::vector<Index> same_node = {home->node};
    options.only_nodes = &same_node;
    return placer_.Place(statement, pod, errors, options);
  }

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

  RequestCache own_requests_;
  const VictimUnit* unmovable_ = nullptr;
  bool placed_ = false;  // the last run placed the preemptor (a failure was the rule's)
  framework::Session& session_;
  Placer& placer_;
  const SolverSpec& spec_;
  const std::vector<Index>* feasible_;
  RequestCache* requests_;  // the other jobs' requests, the same in every try
};

// Where a working scenario put the preemptor, and the GPU room each node still has after it
// (free plus releasing, with the scenario's victims evicted and the preemptor placed).
struct Footprint {
  std::set<Index> preemptor_nodes;
  std::vector<int64_t> leftover_gpu_milli;  // by node
};

Footprint FootprintOf(framework::Session& session, Attempt& attempt, const SolverSpec& spec,
                      const std::vector<const VictimUnit*>& victims) {
  Footprint f;
  framework::Statement statement(session, spec.action);
  Scenario scenario;
  if (!attempt.Run(victims, statement, scenario, {}, false)) return f;
  for (Index task : spec.tasks) f.preemptor_nodes.insert(session.state().pod(task).node);
  f.leftover_gpu_milli.resize(session.state().node_count());
  for (size_t n = 0; n < f.leftover_gpu_milli.size(); ++n) {
    f.leftover_gpu_milli[n] = session.state().gpu_room_milli(static_cast<Index>(n));
  }
  return f;
}

std::vector<const VictimUnit*> Prune(framework::Session& session, Attempt& attempt,
                                     const SolverSpec& spec,
                                     std::vector<const VictimUnit*> victims) {
  Scenario scratch;
  // Any action may end with no victim left: a preemptor that fitted in the free room after all
  // is pipelined and evicts nothing (KAI's search gets there only when placing its victims again
  // puts each back where it was; it can instead move one, bin-packed beside the preemptor, for
  // nothing). Consolidation too: moving a pod is worth it only for room the preemptor needs.
  // 1. Drop, all at once, units with no pod on a node the preemptor uses.
  Footprint footprint = FootprintOf(session, attempt, spec, victims);
  std::vector<const VictimUnit*> on_used;
  for (const VictimUnit* unit : victims) {
    const bool helps = std::any_of(unit->pods.begin(), unit->pods.end(), [&](Index pod) {
      return footprint.preemptor_nodes.count(session.state().pod(pod).node) > 0;
    });
    if (helps) on_used.push_back(unit);
  }
  if (on_used.size() < victims.size() && attempt.Works(on_used, scratch)) {
    victims = std::move(on_used);
    footprint = FootprintOf(session, attempt, spec, victims);
  }
  // 2. Drop units one by one, the last added first, while the scenario still works. Only units
  // whose GPUs the scenario leaves unused on their node are worth a try (cheap to know, and it
  // keeps pruning linear in the victims the preemptor really needs).
  constexpr size_t kMaxSingleDrops = 64;
  size_t tries = 0;
  for (size_t k = victims.size(); k-- > 0 && !victims.empty() && tries < kMaxSingleDrops;) {
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
      footprint = FootprintOf(session, attempt, spec, victims);
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

// Whether a scenario is known to fail without trying it in full (placing the preemptor and every
// victim job again, in allocate's job order: most of a try's cost). Both checks are exact:
//  - the preemptor alone must fit with every victim evicted (victims placed again only take room);
//  - when the room left after the preemptor is less than any victim pod asks for, no victim can
//    be placed again: every victim stays evicted, so consolidation (which must move them all)
//    fails, and the action's rule judges the victims as they are.
bool Hopeless(framework::Session& session, Attempt& attempt, const SolverSpec& spec,
              const std::vector<const VictimUnit*>& victims, const Room& free, const Room& need) {
  Room freed;
  int64_t least_gpu = -1;  // the least GPU room any victim pod needs to be placed again
  for (const VictimUnit* unit : victims) {
    const Room held = Need(session, unit->pods, true);
    freed.gpu_milli += held.gpu_milli;
    freed.cpu_milli += held.cpu_milli;
    for (Index pod : unit->pods) {
      const Index node = session.state().pod(pod).node;
      const int64_t gpu = session.QuotaOf(pod, node)[core::ShareResource::kGpu].value();
      // A pod without GPU devices could go back wherever there is CPU: no bound.
      const int64_t bound = NeedsGpuDevices(session.pod(pod)) ? gpu : 0;
      least_gpu = least_gpu < 0 ? bound : std::min(least_gpu, bound);
    }
  }
  if (least_gpu > 0 && free.gpu_milli + freed.gpu_milli - need.gpu_milli < least_gpu) {
    if (spec.all_victims_must_move) return true;
    if (spec.validate) {
      Scenario unmoved;
      unmoved.tasks = spec.tasks;
      unmoved.victims = victims;
      if (!spec.validate(unmoved)) return true;
    }
  }
  return !attempt.PreemptorFits(victims);
}

// KAI's first scenario generator, sg-nodelocalgreedy
// (pkg/scheduler/plugins/nodelocalgreedy/generator.go), under its solver's probing
// (pkg/scheduler/actions/common/solvers/job_solver.go, SolveWithResult, searchMaxSolvableK):
// the preemptor's first 1, 2, 4 ... pods are placed, each probe carrying the victims of the
// last one that worked as recorded victims. In a probe, victims are accumulated in the action's
// order; once they could make room (the idle-GPUs filter), each node of the latest victim's job,
// by name, gives one scenario: the recorded victims plus every accumulated victim of the jobs
// with a victim on that node (ByNodeScenario.VictimsTasksFromNodes). A scenario that failed
// once is not tried again (scenario_fingerprint.go). Returns the victims of the scenario that
// places every pod, or nothing, and then the accumulating search follows.
std::optional<std::vector<const VictimUnit*>> NodeLocalSearch(
    framework::Session& session, Placer& placer, const SolverSpec& spec,
    const std::function<const VictimUnit*(size_t)>& unit_at, const std::vector<Index>* feasible,
    const std::function<void()>& prepare, RequestCache& requests) {
  // Bounds on the scenarios judged and on the victims read by each probe (KAI bounds its
  // search by time, two minutes per generator by default: search_budget.go); a search that
  // reaches either goes on accumulating.
  constexpr size_t kMaxTries = 16;
  constexpr size_t kMaxUnitsRead = 128;
  using Units = std::vector<const VictimUnit*>;
  struct Found {
    Units scenario;  // the victims tried
    Units victims;   // those not placed back where they were (the next probe's recorded ones)
  };
  std::set<std::tuple<size_t, Units, Units>> failed;
  size_t tries = 0;  // scenarios judged, in full or by the exact checks
  const bool shortcuts = !session.config().reference_search;
  const Room free = FreeRoom(session);
  const framework::ClusterState& state = session.state();
  const auto sorted = [](Units u) {
    std::sort(u.begin(), u.end());
    return u;
  };
  // One probe: the first k pods, over the recorded victims. nullopt when none worked; `stop`
  // set when this search is to end (a bound reached, or a scenario KAI would have accepted and
  // Quotient refuses).
  bool stop = false;
  const auto probe = [&](size_t k, const Units& recorded) -> std::optional<Found> {
    SolverSpec partial = spec;
    partial.tasks.resize(k);
    Attempt attempt(session, placer, partial, feasible, &requests);
    const Room need = Need(session, partial.tasks, false);
    NodeRoom base_rooms(session, partial.tasks);
    Room base_freed;
    const auto free_unit = [&](NodeRoom& rooms, Room& freed, const VictimUnit& unit) {
      rooms.Free(unit);
      const Room more = Need(session, unit.pods, true);
      freed.gpu_milli += more.gpu_milli;
      freed.cpu_milli += more.cpu_milli;
    };
    for (const VictimUnit* unit : recorded) free_unit(base_rooms, base_freed, *unit);
    const auto could_fit = [&](const NodeRoom& rooms, const Room& freed) {
      return free.gpu_milli + freed.gpu_milli >= need.gpu_milli &&
             free.cpu_milli + freed.cpu_milli >= need.cpu_milli && rooms.CouldFit();
    };
    const auto try_scenario = [&](const Units& potential) -> std::optional<Found> {
      std::tuple<size_t, Units, Units> fingerprint{k, sorted(recorded), sorted(potential)};
      if (failed.count(fingerprint)) return std::nullopt;
      prepare();
      Units all = recorded;
      all.insert(all.end(), potential.begin(), potential.end());
      if (tries++ == kMaxTries) {
        stop = true;
        return std::nullopt;
      }
      // Off under the reference search, so that the tests comparing both show the checks exact.
      if (shortcuts && Hopeless(session, attempt, partial, all, free, need)) {
        failed.insert(std::move(fingerprint));
        return std::nullopt;
      }
      Scenario scenario;
      if (!attempt.Works(all, scenario)) {
        // Every victim placed again and the action's rule refusing: KAI's reclaim accepts such a
        // scenario whatever the reclaimer's standing, and its search ends here; Quotient refuses
        // it for a reclaimer above its deserved quota (docs/kai-differences.md), so KAI's search
        // has no further say and the accumulating search decides.
        const bool all_placed_again = std::all_of(all.begin(), all.end(), [&](const VictimUnit* u) {
          return std::all_of(u->pods.begin(), u->pods.end(), [&](Index pod) {
            return scenario.moved_pods.count(pod) > 0 || scenario.kept_pods.count(pod) > 0;
          });
        });
        if (attempt.RuleRefused() && all_placed_again) {
          stop = true;
          return std::nullopt;
        }
        failed.insert(std::move(fingerprint));
        return std::nullopt;
      }
      Found found{all, {}};
      for (const VictimUnit* unit : all) {
        const bool kept = std::all_of(unit->pods.begin(), unit->pods.end(),
                                      [&](Index pod) { return scenario.kept_pods.count(pod) > 0; });
        if (!kept) found.victims.push_back(unit);
      }
      return found;
    };
    // Before any victim is added: the recorded victims alone.
    if (!recorded.empty() && could_fit(base_rooms, base_freed)) {
      if (std::optional<Found> found = try_scenario({})) return found;
      if (stop) return std::nullopt;
    }
    const std::set<const VictimUnit*> recorded_set(recorded.begin(), recorded.end());
    NodeRoom rooms = base_rooms;
    Room freed = base_freed;
    std::map<Index, std::set<Index>> jobs_by_node;      // accumulated victims' jobs on each node
    std::map<Index, std::vector<size_t>> units_by_job;  // accumulated units of each job
    std::map<Index, int32_t> budget_taken;
    std::set<Index> protected_jobs;
    for (size_t i = 0;; ++i) {
      if (i == kMaxUnitsRead) {
        stop = true;
        return std::nullopt;
      }
      const VictimUnit* unit = unit_at(i);
      if (unit == nullptr) break;
      if (recorded_set.count(unit)) continue;
      if (protected_jobs.count(unit->job) ||
          !session.WithinDisruptionBudgets(unit->pods, budget_taken)) {
        protected_jobs.insert(unit->job);
        continue;
      }
      for (Index pod : unit->pods) {
        for (Index b : session.pod(pod).budgets) ++budget_taken[b];
      }
      units_by_job[unit->job].push_back(i);
      for (Index pod : unit->pods) {
        const Index node = state.pod(pod).node;
        if (node != core::kNone) jobs_by_node[node].insert(unit->job);
      }
      free_unit(rooms, freed, *unit);
      if (!could_fit(rooms, freed)) continue;
      std::set<Index> job_nodes;  // by index, i.e. by name
      for (Index pod : session.job(unit->job).pods) {
        if (state.pod(pod).node != core::kNone) job_nodes.insert(state.pod(pod).node);
      }
      std::set<Units> seen;
      for (Index node : job_nodes) {
        const auto here = jobs_by_node.find(node);
        if (here == jobs_by_node.end()) continue;
        std::vector<size_t> positions;
        for (Index job : here->second) {
          const std::vector<size_t>& of_job = units_by_job[job];
          positions.insert(positions.end(), of_job.begin(), of_job.end());
        }
        std::sort(positions.begin(), positions.end());  // in the order they were accumulated
        Units potential;
        for (size_t at : positions) potential.push_back(unit_at(at));
        if (!seen.insert(potential).second) continue;
        NodeRoom subset_rooms = base_rooms;
        Room subset_freed = base_freed;
        for (const VictimUnit* u : potential) free_unit(subset_rooms, subset_freed, *u);
        if (!could_fit(subset_rooms, subset_freed)) continue;
        if (std::optional<Found> found = try_scenario(potential)) return found;
        if (stop) return std::nullopt;
      }
    }
    return std::nullopt;
  };
  const size_t n = spec.tasks.size();
  Units recorded;
  size_t lo = 0;
  size_t hi = 0;
  for (size_t k = 1;; k = std::min(2 * k, n)) {
    std::optional<Found> found = probe(k, recorded);
    if (stop) return std::nullopt;
    if (!found) {
      hi = k;
      break;
    }
    lo = k;
    recorded = std::move(found->victims);
    if (k == n) break;
  }
  while (lo < n && hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    std::optional<Found> found = probe(mid, recorded);
    if (stop) return std::nullopt;
    if (found) {
      lo = mid;
      recorded = std::move(found->victims);
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return std::nullopt;
  std::optional<Found> found = probe(n, recorded);
  if (!found) return std::nullopt;
  return std::move(found->scenario);
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
  bool queue_ended = false;
  // The i-th victim unit in the action's order, read from the queue only as far as asked (every
  // pass of the search starts again from the first).
  const auto unit_at = [&](size_t i) -> const VictimUnit* {
    while (candidates.size() <= i && !queue_ended) {
      if (spec.next_victim_unit) {
        std::optional<VictimUnit> unit = spec.next_victim_unit();
        if (unit) {
          candidates.push_back(std::move(*unit));
        } else {
          queue_ended = true;
        }
        continue;
      }
      const Index job = spec.next_victim_job();
      if (job == core::kNone) {
        queue_ended = true;
        continue;
      }
      for (VictimUnit& u : spec.units_of(job)) candidates.push_back(std::move(u));
    }
    return i < candidates.size() ? &candidates[i] : nullptr;
  };
  size_t next_unit = 0;
  const auto next = [&]() -> const VictimUnit* {
    const VictimUnit* unit = unit_at(next_unit);
    if (unit != nullptr) ++next_unit;
    return unit;
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
  // KAI's feasible nodes for a job all of whose pods need GPU devices
  // (pkg/scheduler/actions/common/feasible_nodes.go, FeasibleNodesForJob): the nodes with free or
  // releasing GPU room before any eviction; a try adds its victims' nodes. Victims moved in a
  // try go only there.
  // Read when the first scenario is about to be tried (most searches end before).
  std::vector<Index> feasible;
  const core::Job& preemptor = session.job(spec.preemptor);
  const bool all_gpu = std::all_of(preemptor.pods.begin(), preemptor.pods.end(),
                                   [&](Index p) { return NeedsGpuDevices(session.pod(p)); });
  RequestCache requests;
  Attempt attempt(session, placer, spec, all_gpu ? &feasible : nullptr, &requests);
  std::vector<const VictimUnit*> victims;
  int64_t slots_at_last_failure = -1;
  // PodDisruptionBudgets: victims chosen so far, per budget. A unit that would take a budget
  // below zero is passed over, and with it the rest of its job (a job is evicted whole or not
  // at all, so its core unit cannot go once one of its surplus pods is protected).
  std::map<Index, int32_t> budget_taken;
  std::set<Index> protected_jobs;
  bool prepared = false;
  const auto prepare = [&] {
    if (prepared) return;
    prepared = true;
    if (spec.before_first_try) spec.before_first_try();
    if (!all_gpu) return;
    for (size_t n = 0; n < session.state().node_count(); ++n) {
      if (session.state().gpu_room_milli(static_cast<Index>(n)) > 0) {
        feasible.push_back(static_cast<Index>(n));
      }
    }
  };
  const auto take_budget = [&](const VictimUnit& unit, int32_t sign) {
    for (Index pod : unit.pods) {
      for (Index b : session.pod(pod).budgets) budget_taken[b] += sign;
    }
  };
  // Prunes a working scenario, tries it once more for its messages and commits it.
  const auto commit = [&](std::vector<const VictimUnit*> chosen) {
    chosen = KeepJobsWhole(candidates, Prune(session, attempt, spec, chosen));
    Scenario final_scenario;
    {
      Scenario probe;
      attempt.Works(chosen, probe);  // which pods move, for their messages
      framework::Statement statement(session, spec.action);
      if (!attempt.Run(chosen, statement, final_scenario, probe.moved_pods, true)) return false;
      statement.Commit();
    }
    for (const VictimUnit* unit : chosen) {
      std::vector<Index> gone;  // pods unevicted keep running and spend no budget
      for (Index pod : unit->pods) {
        if (!final_scenario.kept_pods.count(pod)) gone.push_back(pod);
      }
      session.SpendDisruptions(gone);
    }
    return true;
  };
  if (const std::optional<std::vector<const VictimUnit*>> found = NodeLocalSearch(
          session, placer, spec, unit_at, all_gpu ? &feasible : nullptr, prepare, requests)) {
    return commit(*found);
  }
  // Then victims accumulated across nodes (KAI's sg-multinodegang, without its node subsets).
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
    // be placed again) it refuses every longer list too: no scenario is left to find, and the
    // costly try (evict them all, place the preemptor) can be skipped.
    if (spec.validate && !spec.all_victims_must_move && victims.size() > kMaxUnitsPlacedAgain &&
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
    return commit(victims);
  }
  return false;
}

}  // namespace quotient::actions
