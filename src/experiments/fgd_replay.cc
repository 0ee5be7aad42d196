#include "experiments/fgd_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "actions/placer.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"
#include "framework/statement.h"
#include "generate/cluster_generator.h"
#include "generate/deterministic_random.h"
#include "kube/loader.h"

namespace quotient::experiments {

int64_t RoundedPercent(int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  const int64_t scaled = part * 100;
  int64_t q = scaled / whole;
  const int64_t twice_remainder = 2 * (scaled % whole);
  if (twice_remainder > whole || (twice_remainder == whole && q % 2 == 1)) ++q;
  return q;
}

Result<FgdWorkload> FgdWorkloadOf(const std::string& name, const traces::OpenbTrace& trace) {
  std::ostringstream text;
  generate::WriteObjects(
      [&](const generate::ObjectVisitor& visit) { traces::ForEachOpenbObject(trace, visit); },
      generate::OutputFormat::kJson, text);
  kube::LoadResult loaded;
  kube::DecodeManifestText(text.str(), name, loaded);
  if (loaded.HasErrors()) {
    return Status::Error(name + ": " + loaded.diagnostics.front().message);
  }
  FgdWorkload w;
  w.name = name;
  w.objects = std::move(loaded.objects);
  std::map<std::string, int64_t> gpu_of;
  for (const traces::OpenbPod& p : trace.pods) {
    gpu_of[p.name] = p.gpu_milli == 0 ? 0 : p.gpus * p.gpu_milli;
  }
  for (const core::PodObject& p : w.objects.pods) {
    const auto it = gpu_of.find(p.meta.name);
    if (it == gpu_of.end()) return Status::Error(name + ": pod " + p.meta.name + " not in trace");
    w.pod_gpu_milli.push_back(it->second);
  }
  for (const traces::OpenbNode& n : trace.nodes) w.cluster_gpu_milli += n.gpus * 1000;
  return w;
}

namespace {

// A node with less idle CPU than this cannot host the openb traces' common GPU pods (3 to 12
// cores each): its free GPUs count as held back by CPU.
constexpr int64_t kFewCpuMilli = 4000;

// The pods in arrival order for `seed`: sorted by name, shuffled, topped up to `tune` x cluster.
// Indexes into the workload's pods; a pod drawn again appears again.
std::vector<size_t> ArrivalOrder(const FgdWorkload& w, const FgdOptions& o,
                                 generate::DeterministicRandom& random) {
  std::vector<size_t> order(w.objects.pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return w.objects.pods[a].meta.name < w.objects.pods[b].meta.name;
  });
  random.Shuffle(order);
  int64_t total = 0;
  for (size_t i : order) total += w.pod_gpu_milli[i];
  const int64_t target = w.cluster_gpu_milli * o.tune_permille / 1000;
  const size_t originals = order.size();
  while (originals > 0) {
    const size_t drawn = static_cast<size_t>(random.Below(static_cast<uint64_t>(originals)));
    if (total + w.pod_gpu_milli[drawn] > target) break;
    total += w.pod_gpu_milli[drawn];
    order.push_back(drawn);
  }
  return order;
}

// Where the free GPU is, with the failures counted so far.
FgdLeftover LeftoverOf(const framework::Session& session, FgdLeftover failed) {
  FgdLeftover out = failed;
  const framework::ClusterState& state = session.state();
  for (size_t n = 0; n < state.node_count(); ++n) {
    const framework::NodeState& node = state.node(static_cast<core::Index>(n));
    int64_t free = 0;
    for (const framework::DeviceState& d : node.devices) {
      const int64_t f = d.free_milli().value();
      free += f;
      if (f == framework::kWholeGpuMilli) {
        ++out.idle_gpus;
      } else {
        out.sliver_gpu_milli += f;
      }
    }
    out.free_gpu_milli += free;
    if (node.idle.cpu_milli.value() < kFewCpuMilli) out.cpu_short_gpu_milli += free;
  }
  return out;
}

}  // namespace

FgdRun ReplayFgd(const FgdWorkload& w, const FgdOptions& o) {
  generate::DeterministicRandom random(o.seed);
  core::ClusterObjects objects;
  objects.priority_classes = w.objects.priority_classes;
  objects.queues = w.objects.queues;
  objects.nodes = w.objects.nodes;
  // Random name prefixes: ties between nodes go by name, so they go in a per-seed order.
  std::vector<size_t> rank(objects.nodes.size());
  for (size_t i = 0; i < rank.size(); ++i) rank[i] = i;
  random.Shuffle(rank);
  for (size_t i = 0; i < objects.nodes.size(); ++i) {
    objects.nodes[i].meta.name = fmt::format("{:04d}-{}", rank[i], objects.nodes[i].meta.name);
  }
  const std::vector<size_t> order = ArrivalOrder(w, o, random);
  objects.pods.reserve(order.size());
  std::map<size_t, int64_t> copies;
  for (size_t i : order) {
    core::PodObject pod = w.objects.pods[i];
    const int64_t copy = copies[i]++;
    if (copy > 0) pod.meta.name += fmt::format("-tuned-{}", copy);
    objects.pods.push_back(std::move(pod));
  }
  const core::SnapshotBuild build = core::BuildSnapshot(objects, {});
  const core::Snapshot& snapshot = build.snapshot;
  std::map<std::string, core::Index> index_of;
  for (size_t i = 0; i < snapshot.pods.size(); ++i) {
    index_of.emplace(snapshot.pods[i].key, static_cast<core::Index>(i));
  }
  framework::Session session(snapshot, o.config);
  actions::Placer placer(session);
  actions::Placer::Options place;
  place.explain = false;

  FgdRun run;
  run.workload = w.name;
  run.seed = o.seed;
  run.cluster_gpu_milli = w.cluster_gpu_milli;
  std::vector<int64_t> sum(kMaxArrivedPercent + 1, 0);  // allocated milli-GPU over events
  std::vector<int64_t> events(kMaxArrivedPercent + 1, 0);
  int64_t arrived = 0;
  int64_t allocated = 0;
  FgdLeftover failed;  // only the failure counts
  for (size_t k = 0; k < order.size(); ++k) {
    const core::PodObject& pod = objects.pods[k];
    const core::Index at = index_of.at(pod.meta.Key());
    const int64_t gpu = w.pod_gpu_milli[order[k]];
    framework::Statement statement(session, "allocate");
    actions::FitErrors errors;
    ++run.pods_tried;
    arrived += gpu;
    if (placer.Place(statement, at, errors, place)) {
      statement.Commit();
      allocated += gpu;
      ++run.pods_placed;
    } else {
      statement.Discard();
      const core::Pod& p = snapshot.pods[static_cast<size_t>(at)];
      if (p.gpu.kind == core::GpuSharing::Kind::kNone) {
        ++failed.cpu_only;
      } else if (p.gpu.is_shared()) {
        ++failed.shared;
      } else if (p.gpu.whole_devices == 1) {
        ++failed.one_gpu;
      } else {
        ++failed.multi_gpu;
      }
    }
    const int64_t bin = RoundedPercent(arrived, w.cluster_gpu_milli);
    if (bin >= 100 && !run.at_full) run.at_full = LeftoverOf(session, failed);
    if (bin > kMaxArrivedPercent) continue;
    sum[static_cast<size_t>(bin)] += allocated;
    ++events[static_cast<size_t>(bin)];
  }
  run.allocation_centi.assign(kMaxArrivedPercent + 1, 0);
  for (size_t b = 0; b <= kMaxArrivedPercent; ++b) {
    if (events[b] == 0) continue;
    // Mean of allocated / cluster, in hundredths of a percent.
    run.allocation_centi[b] = sum[b] * 10'000 / (w.cluster_gpu_milli * events[b]);
  }
  // Bins no event fell in (a large pod jumps over them) take the previous bin's value.
  for (size_t b = 1; b <= kMaxArrivedPercent; ++b) {
    if (events[b] == 0) run.allocation_centi[b] = run.allocation_centi[b - 1];
  }
  return run;
}

}  // namespace quotient::experiments
