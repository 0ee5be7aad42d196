// Allocate-cycle benchmarks on a synthetic cluster (bench/synthetic_cluster.h):
//   BM_BuildSnapshot     objects -> snapshot (the per-cycle cost a service pays when it
//                        rebuilds; issue 6 makes it incremental)
//   BM_OpenSession       fair share + overlay
//   BM_AllocateAction    the allocate action alone, on a fresh session each iteration
//   BM_Cycle             all three: one `quotient schedule` cycle without I/O
// Run: ./scripts/bench.sh (release build) — see docs/benchmarks.md for recorded figures.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

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

// A 32-bit FNV-1a digest of a session's outcome (decisions and every job's reasons), reported as
// a label so runs before and after an optimisation can be compared at a glance: a different
// digest means different decisions or explanations.
std::string OutcomeDigest(const framework::Session& session) {
  uint32_t h = 2166136261u;
  const auto mix = [&h](std::string_view text) {
    for (char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 16777619u;
    h = (h ^ 0xffu) * 16777619u;
  };
  for (const framework::Decision& d : session.decisions()) {
    mix(d.action);
    mix(framework::DecisionKindName(d.kind));
    mix(d.pod);
    mix(d.node);
    for (const std::string& g : d.gpu_groups) mix(g);
    mix(d.reason);
  }
  for (size_t j = 0; j < session.snapshot().jobs.size(); ++j) {
    for (const std::string& r : session.JobReasons(static_cast<core::Index>(j))) mix(r);
  }
  char text[16];
  std::snprintf(text, sizeof(text), "digest=%08x", h);
  return text;
}

// Runs the actions `names` on a fresh session of `snapshot` per iteration, timing only the
// actions; reports the decisions of the last run and how many were evictions.
void RunActions(benchmark::State& state, const core::Snapshot& snapshot,
                const std::vector<std::string>& names) {
  const framework::SchedulerConfig config;
  size_t decisions = 0;
  size_t evictions = 0;
  std::string digest;
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
    state.PauseTiming();
    digest = OutcomeDigest(session);
    state.ResumeTiming();
  }
  state.SetLabel(digest);
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
