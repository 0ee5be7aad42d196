// The scheduler's benchmark suite (issue 7): for each generator preset (docs/generate-command.md)
//   model_build        objects -> snapshot, everything read (BuildSnapshot; what a restart pays)
//   model_update_1pct  1% of the pods change in the incremental model (ClusterModel::Upsert)
//   model_snapshot     a snapshot built afresh from the model (ClusterModel::FullSnapshot)
//   model_patch_1pct   after 1% of the pods changed, the model's snapshot (ClusterModel::Snapshot,
//                      the last one patched): a service cycle's start under churn
//   model_patch_churn_1pct  the same with 1% of the pods deleted, or created again, in turn
//   fair_share         a session opened on the snapshot: fair share and the state overlay
//   action/<name>      each action alone on a fresh session
//   cycle              model_snapshot + fair_share + all five actions: one cycle from scratch
//   cycle_reference    the same cycle on the straightforward search (reference_search), whose
//                      digest must equal the cycle's (small and large only: it is slow)
// Every benchmark reports peak_mib, the process's peak so far; scripts/bench.sh runs each
// preset in its own process so that figure is the preset's. Run: ./scripts/bench.sh
#include <benchmark/benchmark.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "actions/registry.h"
#include "core/cluster_model.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"
#include "preset_cluster.h"

namespace quotient::bench {
namespace {

const core::Time kNow = core::Time(std::chrono::seconds(1'790'000'000));

core::SnapshotOptions Options() {
  core::SnapshotOptions o;
  o.now = kNow;
  return o;
}

// A 32-bit FNV-1a digest of a session's outcome (decisions and every job's reasons): runs that
// differ in any decision or explanation differ here.
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
  char text[20];
  std::snprintf(text, sizeof(text), "digest=%08x", h);
  return text;
}

core::ClusterModel ModelOf(const core::ClusterObjects& objects) {
  core::ClusterModel model(Options());
  for (const core::NodeObject& o : objects.nodes) model.Upsert(o);
  for (const core::PodObject& o : objects.pods) model.Upsert(o);
  for (const core::QueueObject& o : objects.queues) model.Upsert(o);
  for (const core::PodGroupObject& o : objects.pod_groups) model.Upsert(o);
  for (const core::PriorityClassObject& o : objects.priority_classes) model.Upsert(o);
  for (const core::PodDisruptionBudgetObject& o : objects.pod_disruption_budgets) model.Upsert(o);
  return model;
}

// The same counters on every row, so the table has one header: the cluster's size, the
// decisions the row's cycle made (0 where it makes none) and the process's peak memory so far.
void Finish(benchmark::State& state, const core::ClusterObjects& objects, size_t decisions = 0) {
  state.counters["nodes"] = static_cast<double>(objects.nodes.size());
  state.counters["pods"] = static_cast<double>(objects.pods.size());
  state.counters["decisions"] = static_cast<double>(decisions);
  state.counters["peak_mib"] = PeakRssMib();
}

void ModelBuild(benchmark::State& state, const std::string& preset) {
  const core::ClusterObjects& objects = PresetObjects(preset);
  for (auto _ : state) {
    core::SnapshotBuild b = core::BuildSnapshot(objects, Options());
    benchmark::DoNotOptimize(b.snapshot.pods.data());
  }
  Finish(state, objects);
}

// Every hundredth pod, in two versions: running ones finish, pending ones get a label (a gate
// lifted, say).
struct PodFlips {
  std::vector<core::PodObject> before;
  std::vector<core::PodObject> after;
};

PodFlips EveryHundredthPod(const core::ClusterObjects& objects) {
  PodFlips flips;
  for (size_t i = 0; i < objects.pods.size(); i += 100) {
    flips.before.push_back(objects.pods[i]);
    core::PodObject changed = objects.pods[i];
    if (changed.phase == core::PodPhase::kRunning) {
      changed.phase = core::PodPhase::kSucceeded;
    } else {
      changed.meta.labels["bench.quotient.dev/touched"] = "true";
    }
    flips.after.push_back(std::move(changed));
  }
  return flips;
}

void RunActions(framework::Session& session, const std::vector<std::string>& names) {
  for (const std::string& name : names) actions::MakeAction(name)->Execute(session);
}

void ModelUpdate(benchmark::State& state, const std::string& preset) {
  const core::ClusterObjects& objects = PresetObjects(preset);
  core::ClusterModel model = ModelOf(objects);
  const PodFlips flips = EveryHundredthPod(objects);
  // Each iteration flips them between the two versions.
  bool flip = false;
  for (auto _ : state) {
    for (const core::PodObject& pod : flip ? flips.before : flips.after) model.Upsert(pod);
    flip = !flip;
  }
  state.SetLabel("changed=" + std::to_string(flips.before.size()) + " pods");
  Finish(state, objects);
}

// A cycle's start under churn: every hundredth pod changes (`deleted`: is deleted, or created
// again, in turn), untimed, then the model's snapshot, patched from the last one, timed.
void ModelPatch(benchmark::State& state, const std::string& preset, bool deleted) {
  const core::ClusterObjects& objects = PresetObjects(preset);
  core::ClusterModel model = ModelOf(objects);
  const PodFlips flips = EveryHundredthPod(objects);
  model.Snapshot(kNow);
  bool flip = false;
  size_t patched = 0;
  for (auto _ : state) {
    state.PauseTiming();  // the updates are model_update_1pct's
    for (const core::PodObject& pod : flip ? flips.before : flips.after) {
      if (!deleted) {
        model.Upsert(pod);
      } else if (flip) {
        model.Upsert(pod);
      } else {
        model.RemovePod(pod.meta.Key());
      }
    }
    flip = !flip;
    state.ResumeTiming();
    const std::shared_ptr<const core::SnapshotBuild> b = model.Snapshot(kNow);
    benchmark::DoNotOptimize(b->snapshot.pods.data());
    if (model.last_was_patched()) ++patched;
  }
  // The last patched snapshot must decide what a full build of the same objects does.
  const framework::SchedulerConfig config;
  const auto decide = [&config](const core::Snapshot& snapshot) {
    framework::Session session(snapshot, config);
    RunActions(session, config.actions);
    return OutcomeDigest(session);
  };
  const std::string digest = decide(model.Snapshot(kNow)->snapshot);
  if (digest != decide(model.FullSnapshot(kNow).snapshot)) {
    state.SkipWithError("the patched snapshot decides otherwise than a full build");
  }
  state.SetLabel("changed=" + std::to_string(flips.before.size()) + " pods, patched=" +
                 std::to_string(patched) + "/" + std::to_string(state.iterations()) + " " + digest);
  Finish(state, objects);
}

void ModelSnapshot(benchmark::State& state, const std::string& preset) {
  const core::ClusterObjects& objects = PresetObjects(preset);
  const core::ClusterModel model = ModelOf(objects);
  for (auto _ : state) {
    core::SnapshotBuild b = model.FullSnapshot(kNow);
    benchmark::DoNotOptimize(b.snapshot.pods.data());
  }
  Finish(state, objects);
}

void FairShare(benchmark::State& state, const std::string& preset) {
  const core::ClusterObjects& objects = PresetObjects(preset);
  const core::Snapshot snapshot = core::BuildSnapshot(objects, Options()).snapshot;
  const framework::SchedulerConfig config;
  for (auto _ : state) {
    framework::Session session(snapshot, config);
    benchmark::DoNotOptimize(&session);
  }
  Finish(state, objects);
}

// The actions `names` on a fresh session per iteration, timing only the actions.
// The default configuration with the GPU placement strategy set (docs/placement.md): the
// `_fragmentation` benchmarks measure what the fragmentation strategy costs.
framework::SchedulerConfig WithGpuPlacement(const std::string& strategy) {
  framework::SchedulerConfig config;
  // Plugins are only read for their arguments: a list of this one alone keeps every other
  // default.
  if (!strategy.empty()) {
    config.tiers = {
        framework::Tier{{framework::PluginOption{"nodeplacement", {{"gpu", strategy}}}}}};
  }
  return config;
}

void Actions(benchmark::State& state, const std::string& preset,
             const std::vector<std::string>& names, const std::string& gpu_placement = "") {
  const core::ClusterObjects& objects = PresetObjects(preset);
  const core::Snapshot snapshot = core::BuildSnapshot(objects, Options()).snapshot;
  const framework::SchedulerConfig config = WithGpuPlacement(gpu_placement);
  std::string digest;
  size_t decisions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    framework::Session session(snapshot, config);
    state.ResumeTiming();
    for (const std::string& name : names) actions::MakeAction(name)->Execute(session);
    state.PauseTiming();
    decisions = session.decisions().size();
    digest = OutcomeDigest(session);
    state.ResumeTiming();
  }
  state.SetLabel(digest);
  Finish(state, objects, decisions);
}

// One cycle untimed first: the first in a process also pays for the heap's growth (page faults
// on fresh memory, about half again at 3,000 nodes), which a service's later cycles do not.
void WarmUp(const core::ClusterModel& model, const framework::SchedulerConfig& config) {
  const core::SnapshotBuild b = model.FullSnapshot(kNow);
  framework::Session session(b.snapshot, config);
  RunActions(session, config.actions);
}

// One service cycle: the snapshot from the model, the session, all five actions.
void Cycle(benchmark::State& state, const std::string& preset, bool reference,
           const std::string& gpu_placement = "") {
  const core::ClusterObjects& objects = PresetObjects(preset);
  const core::ClusterModel model = ModelOf(objects);
  framework::SchedulerConfig config = WithGpuPlacement(gpu_placement);
  config.reference_search = reference;
  std::string digest;
  size_t decisions = 0;
  WarmUp(model, config);
  for (auto _ : state) {
    const core::SnapshotBuild b = model.FullSnapshot(kNow);
    framework::Session session(b.snapshot, config);
    RunActions(session, config.actions);
    state.PauseTiming();
    decisions = session.decisions().size();
    digest = OutcomeDigest(session);
    state.ResumeTiming();
  }
  state.SetLabel(digest);
  Finish(state, objects, decisions);
}

void Register(const std::string& preset, bool with_reference) {
  const auto add = [&](const std::string& what, auto fn) {
    benchmark::RegisterBenchmark((preset + "/" + what).c_str(), fn)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  add("model_build", [preset](benchmark::State& s) { ModelBuild(s, preset); });
  add("model_update_1pct", [preset](benchmark::State& s) { ModelUpdate(s, preset); });
  add("model_snapshot", [preset](benchmark::State& s) { ModelSnapshot(s, preset); });
  add("model_patch_1pct", [preset](benchmark::State& s) { ModelPatch(s, preset, false); });
  add("model_patch_churn_1pct", [preset](benchmark::State& s) { ModelPatch(s, preset, true); });
  add("fair_share", [preset](benchmark::State& s) { FairShare(s, preset); });
  for (const std::string& action : framework::SchedulerConfig::DefaultActions()) {
    add("action/" + action,
        [preset, action](benchmark::State& s) { Actions(s, preset, {action}); });
  }
  add("cycle", [preset](benchmark::State& s) { Cycle(s, preset, false); });
  add("action/allocate_fragmentation",
      [preset](benchmark::State& s) { Actions(s, preset, {"allocate"}, "fragmentation"); });
  add("cycle_fragmentation",
      [preset](benchmark::State& s) { Cycle(s, preset, false, "fragmentation"); });
  if (with_reference) {
    add("cycle_reference", [preset](benchmark::State& s) { Cycle(s, preset, true); });
  }
}

}  // namespace
}  // namespace quotient::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  CLI::App app{
      "Quotient's scheduler benchmarks on generated clusters (plus Google Benchmark's "
      "--benchmark_* flags)"};
  std::vector<std::string> presets{"small"};
  bool reference = false;
  app.add_option("--preset", presets,
                 "generator presets to measure (small, large, xlarge, "
                 "reclaim-1000); repeat or separate with commas")
      ->delimiter(',');
  app.add_flag("--reference", reference,
               "also time the cycle on the straightforward search (slow at xlarge)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (const std::string& preset : presets) quotient::bench::Register(preset, reference);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
