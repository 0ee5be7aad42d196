#include "preset_cluster.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "generate/cluster_generator.h"
#include "kube/loader.h"

namespace quotient::bench {

const core::ClusterObjects& PresetObjects(const std::string& name) {
  static std::map<std::string, core::ClusterObjects> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  Result<generate::ClusterSpec> spec = generate::PresetSpec(name);
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
