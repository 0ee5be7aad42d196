// The dashboard's state at scale (docs/dashboard.md): one cycle on a generated cluster (preset
// `large`: 1,000 nodes of 8 GPUs, 17,000 pods), then what `quotient scheduler --dashboard` adds
// to it: building the state after the cycle, and answering /dashboard/state (the first request
// for a state serialises it; later ones reuse the text). Every 100th node is cordoned and every
// 50th node with an idle GPU gets one reported unhealthy, so the map's marks are exercised too.
//
//   dashboard_state_benchmark [--preset large] [--repeat 20] [-o state.json]
//
// -o writes the served document, which scripts/bench-dashboard.sh loads into the page in
// headless Chromium to time its rendering.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/snapshot_builder.h"
#include "preset_cluster.h"
#include "scheduler/run.h"
#include "service/dashboard.h"
#include "service/dashboard_state.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace quotient;  // NOLINT: a benchmark's main
  CLI::App app{"The dashboard's state on a generated cluster: build and serve times"};
  std::string preset = "large";
  int repeat = 20;
  std::string output;
  app.add_option("--preset", preset, "Generator preset (default large: 1,000 nodes)");
  app.add_option("--repeat", repeat, "Timed repetitions (default 20; the median is shown)")
      ->check(CLI::PositiveNumber);
  app.add_option("-o,--output", output, "Write the served /dashboard/state document here");
  CLI11_PARSE(app, argc, argv);

  core::ClusterObjects objects = bench::PresetObjects(preset);
  const core::SnapshotBuild first = core::BuildSnapshot(objects, {});
  for (size_t n = 0; n < objects.nodes.size(); ++n) {
    core::NodeObject& node = objects.nodes[n];
    const core::Node& built =
        first.snapshot.nodes[static_cast<size_t>(first.snapshot.FindNode(node.meta.name))];
    const bool has_idle = std::any_of(built.gpus.begin(), built.gpus.end(), [](const auto& g) {
      return g.state == core::GpuDevice::State::kIdle;
    });
    if (n % 100 == 7) node.unschedulable = true;
    if (n % 50 == 3 && has_idle) {
      node.unhealthy_gpus = {{"GPU-" + node.meta.name + "-7", 7, "Xid79"}};
    }
  }
  const core::SnapshotBuild build = core::BuildSnapshot(objects, {});
  const core::Snapshot& snapshot = build.snapshot;
  scheduler::RunOptions run;
  const auto cycle_started = Clock::now();
  const scheduler::RunReport report = scheduler::RunCycle(build, run);
  const double cycle_ms = Ms(Clock::now() - cycle_started);

  service::DashboardInput input;
  input.snapshot = &snapshot;
  input.report = &report;
  for (const core::NodeObject& node : objects.nodes) {
    if (!node.unhealthy_gpus.empty()) input.unhealthy_gpus[node.meta.name] = node.unhealthy_gpus;
  }
  input.computed_at = std::chrono::system_clock::now();
  input.cycle_duration = std::chrono::milliseconds(static_cast<int64_t>(cycle_ms));
  input.cycle = 1;
  input.scheduler_name = "quotient";
  service::Dashboard dashboard;
  dashboard.SetLeading(true);
  // The evictions the cycle decided (at most the log's capacity are kept).
  for (const framework::Decision& d : report.cycles.at(0).decisions) {
    if (d.kind != framework::DecisionKind::kEvict) continue;
    const core::Index pod = snapshot.FindPod(d.pod);
    const core::Index job =
        pod == core::kNone ? core::kNone : snapshot.pods[static_cast<size_t>(pod)].job;
    const core::Job* j = job == core::kNone ? nullptr : &snapshot.jobs[static_cast<size_t>(job)];
    dashboard.RecordEviction({input.computed_at, d.action, d.pod, j ? j->key : "",
                              j ? j->queue_name : "", d.node, d.reason});
  }

  std::vector<double> build_ms;
  std::vector<double> serve_ms;
  std::vector<double> again_ms;
  std::string text;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = Clock::now();
    nlohmann::json state = service::BuildDashboardState(input);
    build_ms.push_back(Ms(Clock::now() - t0));
    dashboard.Publish(std::move(state), input.computed_at);
    t0 = Clock::now();
    text = dashboard.StateText(std::chrono::system_clock::now());
    serve_ms.push_back(Ms(Clock::now() - t0));
    t0 = Clock::now();
    (void)dashboard.StateText(std::chrono::system_clock::now());
    again_ms.push_back(Ms(Clock::now() - t0));
  }
  size_t gpus = 0;
  for (const core::Node& n : snapshot.nodes) gpus += n.gpus.size();
  std::printf(
      "preset %s: %zu nodes, %zu GPUs, %zu pods, %zu queues; the cycle took %.1f ms\n"
      "dashboard state: built in %.2f ms (median of %d); answered in %.2f ms at its first "
      "request (serialised), %.2f ms at the next; %.0f KiB\n",
      preset.c_str(), snapshot.nodes.size(), gpus, snapshot.pods.size(), snapshot.queues.size(),
      cycle_ms, Median(build_ms), repeat, Median(serve_ms), Median(again_ms),
      static_cast<double>(text.size()) / 1024.0);
  if (!output.empty()) {
    std::ofstream out(output);
    out << text;
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", output.c_str());
      return 1;
    }
  }
  return 0;
}
