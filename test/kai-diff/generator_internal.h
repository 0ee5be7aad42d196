// The generator's working state, shared by its parts: generator.cc (the feature profile,
// priority classes, run options), generator_cluster.cc (nodes and the queue tree),
// generator_jobs.cc (jobs: shapes, priorities, placement rules, running pods packed onto nodes)
// and generator_objects.cc (a job's PodGroup and Pod objects). Quantities are kept
// as integers: cpu in millicores, memory in GiB, GPU shares in hundredths of a device.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "generator.h"
#include "rng.h"

namespace quotient::kaidiff::gen {

// A node as the packer sees it: what is still free for running pods.
struct NodeState {
  std::string name;
  std::string pool;  // "" = the default pool
  std::string zone;
  bool tainted = false;
  bool usable = true;  // Ready; a cordoned node stays usable for pods already running there
  bool mig_single = false;
  int64_t cpu_free = 0;  // millicores
  int64_t mem_free = 0;  // GiB
  int whole_free = 0;    // devices with nothing on them
  int gpu_memory_mib = 0;
  std::map<std::string, int> mig_free;  // "1g.10gb" -> instances
  struct SharedGpu {
    std::string group;
    int used = 0;  // hundredths
  };
  std::vector<SharedGpu> shared;
};

struct Builder {
  Builder(uint64_t seed, int index, const GeneratorOptions& opts)
      : rng(seed, static_cast<uint64_t>(index)), options(opts) {}

  Rng rng;
  const GeneratorOptions& options;
  std::set<std::string> features;  // the profile: features this case may use
  std::set<std::string> tags;      // what the case actually uses
  std::vector<nlohmann::json> nodes, queues, groups, pods;
  std::vector<NodeState> node_states;
  std::vector<std::string> leaf_queues;
  std::set<std::string> priority_classes;  // referenced ones
  std::set<std::string> pools;             // pools some node is in
  bool has_mig_mixed = false;
  bool has_gpu_nodes = false;
  int total_gpus = 0;
  int next_group = 0;

  bool On(const std::string& feature) const { return features.count(feature) > 0; }
  void Tag(const std::string& tag) { tags.insert(tag); }
};

// "2026-03-01T10:07:00Z" for a minute of 2026-03-01 (0 <= minute < 1440).
std::string TimeOfDay(int minute);
// An RFC3339 time `seconds` before kNow.
std::string SecondsBeforeNow(int seconds);

// ---- jobs (generator_jobs.cc) and their objects (generator_objects.cc) ----------------------

struct Gpu {
  std::string kind = "cpu-only";  // whole, fraction, gpu-memory, multi-fraction, mig, cpu-only
  int whole = 0;
  int fraction = 0;  // hundredths
  int memory_mib = 0;
  int devices = 1;
  std::string mig_profile;
  int mig_count = 0;
};

struct Leaf {
  std::string name;
  int min = 1;
  int pods = 1;
};

struct Job {
  std::string name, queue, priority_class, preemptibility, pool, zone_in, zone_not_in;
  bool implicit = false, tolerate = false, preferred_zone = false;
  int min_member = 1;
  std::optional<int> min_subgroup;
  std::vector<Leaf> leaves;  // subgroups; empty = one group of `pods`
  std::string parent_subgroup;
  int pods = 1;
  Gpu gpu;
  int64_t cpu = 1000;  // millicores
  int64_t mem = 4;     // GiB
};

struct Placement {
  size_t node = 0;
  std::vector<std::string> groups;  // shared GPU groups the pod joins or opens
};

struct PodState {
  std::string phase = "Pending";
  std::optional<Placement> placement;
  bool releasing = false;
  bool gated = false;
};

// The Kubernetes objects of a job.
nlohmann::json PodGroupObject(const Job& j, const std::string& created,
                              const nlohmann::json& annotations);
nlohmann::json PodObject(Builder& b, const Job& j, const std::string& name,
                         const std::string& subgroup, const std::string& created,
                         const PodState& s);

void AddNodes(Builder& b);
void AddQueues(Builder& b);
void AddJobs(Builder& b);

}  // namespace quotient::kaidiff::gen
