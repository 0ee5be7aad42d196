// Allocate-cycle benchmarks on a synthetic cluster (bench/synthetic_cluster.h):
//   BM_BuildSnapshot     objects -> snapshot (the per-cycle cost a service pays when it
//                        rebuilds; issue 6 makes it incremental)
//   BM_OpenSession       fair share + overlay
//   BM_AllocateAction    the allocate action alone, on a fresh session each iteration
//   BM_Cycle             all three: one `quotient schedule` cycle without I/O
// Run: ./scripts/bench.sh (release build) — see docs/benchmarks.md for recorded figures.
#include <benchmark/benchmark.h>

#include <map>

#include "actions/allocate/allocate.h"
#include "actions/registry.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"
#include "synthetic_cluster.h"

namespace quotient::bench {
namespace {

SyntheticClusterSpec SpecFor(const benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.running_pods = spec.nodes * 10;
  spec.pending_groups = spec.nodes * 2;
  spec.departments = 10;
  spec.projects_per_department = 10;
  return spec;
}

const core::ClusterObjects& Objects(const benchmark::State& state) {
  static std::map<int64_t, core::ClusterObjects> cache;
  auto it = cache.find(state.range(0));
  if (it == cache.end())
    it = cache.emplace(state.range(0), MakeSyntheticCluster(SpecFor(state))).first;
  return it->second;
}

void BM_BuildSnapshot(benchmark::State& state) {
  const core::ClusterObjects& objects = Objects(state);
  for (auto _ : state) {
    core::SnapshotBuild b = core::BuildSnapshot(objects, core::SnapshotOptions{});
    benchmark::DoNotOptimize(b.snapshot.pods.data());
  }
  state.counters["pods"] = static_cast<double>(objects.pods.size());
}

void BM_OpenSession(benchmark::State& state) {
  const core::Snapshot snapshot = core::BuildSnapshot(Objects(state), {}).snapshot;
  const framework::SchedulerConfig config;
  for (auto _ : state) {
    framework::Session session(snapshot, config);
    benchmark::DoNotOptimize(&session);
  }
}

// Runs the actions `names` on a fresh session of `snapshot` per iteration, timing only the
// actions; reports the decisions of the last run and how many were evictions.
void RunActions(benchmark::State& state, const core::Snapshot& snapshot,
                const std::vector<std::string>& names) {
  const framework::SchedulerConfig config;
  size_t decisions = 0;
  size_t evictions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    framework::Session session(snapshot, config);
    state.ResumeTiming();
    for (const std::string& name : names) actions::MakeAction(name)->Execute(session);
    decisions = session.decisions().size();
    evictions = 0;
    for (const framework::Decision& d : session.decisions()) {
      evictions += d.kind == framework::DecisionKind::kEvict;
    }
  }
  state.counters["decisions"] = static_cast<double>(decisions);
  state.counters["evictions"] = static_cast<double>(evictions);
}

void BM_AllocateAction(benchmark::State& state) {
  RunActions(state, core::BuildSnapshot(Objects(state), {}).snapshot, {"allocate"});
}

// Snapshot, session and allocate: one `quotient schedule` cycle of allocate without I/O.
void BM_Cycle(benchmark::State& state) {
  const core::ClusterObjects& objects = Objects(state);
  const framework::SchedulerConfig config;
  for (auto _ : state) {
    const core::Snapshot snapshot = core::BuildSnapshot(objects, {}).snapshot;
    framework::Session session(snapshot, config);
    actions::AllocateAction().Execute(session);
    benchmark::DoNotOptimize(session.decisions().data());
  }
}

// All five actions in KAI's default order.
void BM_FullCycleAllActions(benchmark::State& state) {
  RunActions(state, core::BuildSnapshot(Objects(state), {}).snapshot,
             framework::SchedulerConfig::DefaultActions());
}

void BM_ReclaimAction(benchmark::State& state) {
  RunActions(state, core::BuildSnapshot(Objects(state), {}).snapshot, {"reclaim"});
}

// KAI's ReclaimLargeJobs (1,000 nodes: 76.3 s and 7.87 GiB per op in KAI's own benchmark).
void BM_ReclaimLargeJobs(benchmark::State& state) {
  RunActions(
      state,
      core::BuildSnapshot(MakeReclaimLargeJobs(static_cast<int>(state.range(0))), {}).snapshot,
      {"reclaim"});
}

BENCHMARK(BM_ReclaimLargeJobs)
    ->Arg(100)
    ->Arg(200)
    ->Arg(500)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReclaimAction)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullCycleAllActions)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildSnapshot)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OpenSession)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllocateAction)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cycle)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace quotient::bench

BENCHMARK_MAIN();
