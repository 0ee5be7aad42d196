#include "preset_cluster.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "generate/cluster_generator.h"
#include "kube/loader.h"

namespace quotient::bench {
namespace {

// A preset by name, or one of the variants the benchmarks and tests add:
//   scaled-<N>         large's shape at N nodes: 10 running pods and 2 pending groups per
//                      node, 100 leaf queues (the cost curve)
//   teams-<N>          the same with one leaf queue per 10 nodes (N/100 departments of 10
//                      projects: large at 1,000): bigger clusters have more teams
//   small-pools-mixed  small with three node pools and every fourth node of 4 x 40 GB
Result<generate::ClusterSpec> SpecFor(const std::string& name) {
  if (name.rfind("scaled-", 0) == 0) {
    generate::ClusterSpec spec = generate::PresetSpec("large").value();
    const int nodes = std::atoi(name.c_str() + 7);
    if (nodes <= 0) return Result<generate::ClusterSpec>::Error("bad preset " + name);
    spec.nodes = nodes;
    spec.running_pods = nodes * 10;
    spec.pending_groups = nodes * 2;
    return spec;
  }
  if (name.rfind("teams-", 0) == 0) {
    Result<generate::ClusterSpec> scaled = SpecFor("scaled-" + name.substr(6));
    if (!scaled.ok()) return scaled;
    generate::ClusterSpec spec = scaled.value();
    spec.departments = std::max(1, spec.nodes / 100);
    spec.projects_per_department = 10;
    return spec;
  }
  if (name == "small-pools-mixed") {
    generate::ClusterSpec spec = generate::PresetSpec("small").value();
    spec.node_pools = 3;
    spec.mixed_gpus = true;
    spec.running_pods = 600;  // the 4-GPU nodes hold less
    return spec;
  }
  return generate::PresetSpec(name);
}

}  // namespace

const core::ClusterObjects& PresetObjects(const std::string& name) {
  static std::map<std::string, core::ClusterObjects> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  Result<generate::ClusterSpec> spec = SpecFor(name);
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.message().c_str());
    std::exit(2);
  }
  Result<std::string> text = generate::GenerateClusterText(*spec, generate::OutputFormat::kJson);
  if (!text.ok()) {
    std::fprintf(stderr, "generating %s: %s\n", name.c_str(), text.message().c_str());
    std::exit(1);
  }
  kube::LoadResult loaded;
  kube::DecodeManifestText(*text, name + ".json", loaded);
  if (!loaded.diagnostics.empty()) {
    std::fprintf(stderr, "%s does not load cleanly: %s\n", name.c_str(),
                 loaded.diagnostics.front().ToString().c_str());
    std::exit(1);
  }
  return cache.emplace(name, std::move(loaded.objects)).first->second;
}

double PeakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace quotient::bench
