// Jobs: PodGroups (or implicit single-pod groups) with their pods, in the leaf queues. Some
// start Running, packed onto nodes that have room (shared GPUs through runai-gpu-group labels),
// the rest are Pending; a few are releasing, finished, gated or stale gangs.
#include <algorithm>
#include <optional>
#include <string>

#include "generator_internal.h"

namespace quotient::kaidiff::gen {
namespace {

using nlohmann::json;

Gpu ChooseGpu(Builder& b) {
  std::vector<std::string> kinds = {"whole", "whole"};
  for (const char* k : {"cpu-only", "fraction", "gpu-memory", "multi-fraction"}) {
    if (b.On(k)) kinds.push_back(k);
  }
  if (b.On("mig") && b.has_mig_mixed) kinds.push_back("mig");
  Gpu g;
  g.kind = b.rng.Pick(kinds);
  if (g.kind == "whole") {
    g.whole = b.rng.Pick(std::vector<int>{1, 1, 1, 2, 2, 4, 8});
  } else if (g.kind == "fraction") {
    g.fraction = b.rng.Pick(std::vector<int>{10, 25, 50, 50, 75});
  } else if (g.kind == "gpu-memory") {
    g.memory_mib = b.rng.Pick(std::vector<int>{10240, 20480, 40960});
  } else if (g.kind == "multi-fraction") {
    g.fraction = b.rng.Pick(std::vector<int>{25, 50});
    g.devices = 2;
  } else if (g.kind == "mig") {
    g.mig_profile =
        b.rng.Pick(std::vector<std::string>{"1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"});
    g.mig_count = b.rng.Between(1, 2);
  }
  return g;
}

void ChooseShape(Builder& b, Job& j) {
  if (b.On("implicit-group") && b.rng.Chance(25)) {
    j.implicit = true;
    b.Tag("implicit-group");
    return;
  }
  if (b.On("subgroups") && b.rng.Chance(30)) {
    const int count = b.rng.Between(2, 3);
    for (int i = 0; i < count; ++i) {
      Leaf leaf{"sg-" + std::string(1, static_cast<char>('a' + i)), b.rng.Between(1, 2), 0};
      leaf.pods = leaf.min + (b.On("elastic") && b.rng.Chance(30) ? 1 : 0);
      j.leaves.push_back(leaf);
    }
    b.Tag("subgroups");
    if (b.On("min-subgroup") && b.rng.Chance(50)) {
      j.min_subgroup = b.rng.Between(1, count - 1);
      b.Tag("min-subgroup");
    } else if (b.rng.Chance(30)) {
      j.parent_subgroup = "main";  // the first two leaves under one parent subgroup
    }
    j.min_member = 0;
    j.pods = 0;
    for (const Leaf& leaf : j.leaves) {
      j.min_member += leaf.min;
      j.pods += leaf.pods;
    }
    if (j.pods > j.min_member) b.Tag("elastic");
    b.Tag("gang");
    return;
  }
  j.min_member = b.On("gang") ? b.rng.Pick(std::vector<int>{1, 1, 2, 2, 3, 4}) : 1;
  j.pods = j.min_member;
  if (b.On("elastic") && b.rng.Chance(35)) {
    j.pods += b.rng.Between(1, 2);
    b.Tag("elastic");
  }
  if (j.min_member > 1) b.Tag("gang");
}

void ChoosePriority(Builder& b, Job& j) {
  if (b.rng.Chance(40)) return;
  std::vector<std::string> classes = {"train", "train", "low"};
  if (b.On("non-preemptible")) classes.insert(classes.end(), {"build", "inference"});
  j.priority_class = b.rng.Pick(classes);
  b.priority_classes.insert(j.priority_class);
  bool non_preemptible = j.priority_class == "build" || j.priority_class == "inference";
  if (b.On("preemptibility") && !j.implicit && b.rng.Chance(35)) {
    j.preemptibility = b.rng.Chance(50) ? "preemptible" : "non-preemptible";
    non_preemptible = j.preemptibility == "non-preemptible";
    b.Tag("preemptibility");
  }
  if (non_preemptible) b.Tag("non-preemptible");
}

void ChoosePlacement(Builder& b, Job& j) {
  if (b.On("node-pools") && !b.pools.empty() && b.rng.Chance(40)) {
    j.pool = *std::next(b.pools.begin(), b.rng.Below(static_cast<int>(b.pools.size())));
  }
  if (b.On("selector") && b.rng.Chance(30)) {
    j.zone_in = b.rng.Chance(50) ? "zone-a" : "zone-b";
    b.Tag("selector");
  } else if (b.On("affinity") && b.rng.Chance(35)) {
    const std::string zone = b.rng.Chance(50) ? "zone-a" : "zone-b";
    if (b.rng.Chance(30)) {
      j.preferred_zone = true;
      j.zone_in = zone;
    } else {
      j.zone_not_in = zone;
    }
    b.Tag("affinity");
  }
  j.tolerate = b.On("taints") && b.rng.Chance(50);
}

// ---- packing running pods -------------------------------------------------------------------

bool Eligible(const Job& j, const NodeState& n) {
  if (!n.usable || n.pool != j.pool || (n.tainted && !j.tolerate)) return false;
  if (!j.preferred_zone && !j.zone_in.empty() && n.zone != j.zone_in) return false;
  if (!j.zone_not_in.empty() && n.zone == j.zone_not_in) return false;
  return n.cpu_free >= j.cpu && n.mem_free >= j.mem;
}

// Takes `share` hundredths of one device on n: an open shared GPU with room, else a free one.
std::optional<std::string> TakeShare(Builder& b, NodeState& n, int share,
                                     const std::vector<std::string>& avoid) {
  for (NodeState::SharedGpu& g : n.shared) {
    if (g.used + share <= 100 && std::find(avoid.begin(), avoid.end(), g.group) == avoid.end()) {
      g.used += share;
      return g.group;
    }
  }
  if (n.whole_free == 0) return std::nullopt;
  --n.whole_free;
  n.shared.push_back({"gpu-group-" + std::to_string(b.next_group++), share});
  return n.shared.back().group;
}

std::optional<Placement> Place(Builder& b, const Job& j, std::vector<NodeState>& nodes) {
  const size_t count = nodes.size();
  const size_t start = static_cast<size_t>(b.rng.Below(static_cast<int>(count)));
  for (size_t k = 0; k < count; ++k) {
    const size_t i = (start + k) % count;
    NodeState n = nodes[i];
    if (!Eligible(j, n)) continue;
    Placement p{i, {}};
    const Gpu& g = j.gpu;
    bool ok = true;
    if (g.kind == "whole") {
      ok = n.whole_free >= g.whole;
      n.whole_free -= g.whole;
    } else if (g.kind == "mig") {
      ok = n.mig_free[g.mig_profile] >= g.mig_count;
      n.mig_free[g.mig_profile] -= g.mig_count;
    } else if (g.kind != "cpu-only") {
      int share = g.fraction;
      if (g.kind == "gpu-memory") {
        ok = n.gpu_memory_mib >= g.memory_mib;
        share = n.gpu_memory_mib == 0
                    ? 100
                    : (g.memory_mib * 100 + n.gpu_memory_mib - 1) / n.gpu_memory_mib;
      }
      ok = ok && !n.mig_single && n.gpu_memory_mib > 0;
      for (int d = 0; ok && d < g.devices; ++d) {
        std::optional<std::string> group = TakeShare(b, n, share, p.groups);
        ok = group.has_value();
        if (ok) p.groups.push_back(*group);
      }
    }
    if (!ok) continue;
    n.cpu_free -= j.cpu;
    n.mem_free -= j.mem;
    nodes[i] = n;
    return p;
  }
  return std::nullopt;
}

// Which pods run: all of them (a running job), some (an elastic job beyond its minimum, or a
// stale gang below it) or none. Returns one state per pod; rolls back when they do not fit.
std::vector<PodState> ChooseStates(Builder& b, const Job& j) {
  std::vector<PodState> states(static_cast<size_t>(j.pods));
  if (!(b.On("running") && b.rng.Chance(45))) {
    if (b.On("gated") && b.rng.Chance(30)) {
      for (PodState& s : states) s.gated = true;
      b.Tag("gated");
    }
    return states;
  }
  int target = j.pods;
  bool stale = false;
  if (b.On("stale-gang") && j.min_member > 1 && j.leaves.empty() && b.rng.Chance(40)) {
    target = b.rng.Between(1, j.min_member - 1);
    stale = true;
  } else if (j.pods > j.min_member && j.leaves.empty()) {
    target = b.rng.Between(j.min_member, j.pods);
  }
  std::vector<NodeState> nodes = b.node_states;
  std::vector<std::optional<Placement>> placed;
  for (int i = 0; i < target; ++i) {
    placed.push_back(Place(b, j, nodes));
    if (!placed.back()) return states;  // does not fit: the whole job stays pending
  }
  b.node_states = nodes;
  for (int i = 0; i < target; ++i) {
    PodState& s = states[static_cast<size_t>(i)];
    s.phase = "Running";
    s.placement = placed[static_cast<size_t>(i)];
    if (b.On("releasing") && b.rng.Chance(25)) {
      s.releasing = true;
      b.Tag("releasing");
    }
  }
  b.Tag("running");
  if (stale) b.Tag("stale-gang");
  return states;
}

void AddJob(Builder& b, int k) {
  Job j;
  j.queue = b.rng.Pick(b.leaf_queues);
  j.name = j.queue + "-j" + std::to_string(k);
  ChooseShape(b, j);
  ChoosePriority(b, j);
  ChoosePlacement(b, j);
  j.gpu = ChooseGpu(b);
  if (j.gpu.kind == "whole") b.Tag("whole-gpu");
  if (j.gpu.kind != "whole") b.Tag(j.gpu.kind);
  j.cpu = b.rng.Pick(std::vector<int64_t>{250, 500, 1000, 1000, 2000, 4000, 8000});
  j.mem = b.rng.Pick(std::vector<int64_t>{1, 2, 4, 4, 8, 16, 32});
  const std::vector<PodState> states = ChooseStates(b, j);
  const bool running = states.front().phase == "Running";
  const std::string created = TimeOfDay((running ? 480 : 600) + 2 * k);
  if (!j.implicit) {
    json annotations = json::object();
    if (running) {
      annotations["kai.scheduler/last-start-timestamp"] =
          SecondsBeforeNow(60 * b.rng.Pick(std::vector<int>{1, 8, 20, 45, 90, 150}));
    }
    const auto holding = std::count_if(states.begin(), states.end(),
                                       [](const PodState& s) { return s.phase == "Running"; });
    if (running && holding < j.min_member && b.rng.Chance(50)) {
      annotations["kai.scheduler/stale-podgroup-timestamp"] =
          SecondsBeforeNow(b.rng.Pick(std::vector<int>{10, 120, 600}));
    }
    b.groups.push_back(PodGroupObject(j, created, annotations));
  }
  size_t pod = 0;
  auto add = [&](const std::string& subgroup, int count) {
    for (int i = 0; i < count; ++i, ++pod) {
      const std::string name = j.implicit ? j.name : j.name + "-" + std::to_string(pod);
      b.pods.push_back(PodObject(b, j, name, subgroup, created, states[pod]));
    }
  };
  if (j.leaves.empty()) {
    add("", j.pods);
  } else {
    for (const Leaf& leaf : j.leaves) add(leaf.name, leaf.pods);
  }
  if (running && b.On("finished") && !j.implicit && b.rng.Chance(25)) {
    // A finished pod of the same job: on its node, holding nothing.
    PodState done;
    done.phase = b.rng.Chance(50) ? "Succeeded" : "Failed";
    done.placement = Placement{states.front().placement->node, {}};
    json finished = PodObject(b, j, j.name + "-done", "", created, done);
    if (!j.leaves.empty()) {
      finished["metadata"]["labels"]["kai.scheduler/subgroup-name"] = j.leaves.front().name;
    }
    b.pods.push_back(finished);
    b.Tag("finished");
  }
}

}  // namespace

void AddJobs(Builder& b) {
  const int roll = b.rng.Below(100);
  const int budget = roll < 40   ? b.rng.Between(2, 10)
                     : roll < 80 ? b.rng.Between(8, 25)
                                 : b.rng.Between(20, 60);
  for (int k = 0; k < 20 && static_cast<int>(b.pods.size()) < budget; ++k) AddJob(b, k);
}

}  // namespace quotient::kaidiff::gen
