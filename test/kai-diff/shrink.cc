#include "shrink.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace quotient::kaidiff {
namespace {

using nlohmann::json;
using Indices = std::vector<size_t>;
using Reduction = std::function<std::optional<Case>(const Case&)>;

std::string Kind(const json& o) { return o.value("kind", ""); }
std::string Name(const json& o) { return o["metadata"].value("name", ""); }
std::string Key(const json& o) { return o["metadata"].value("namespace", "") + "/" + Name(o); }

std::string Annotation(const json& o, const std::string& key) {
  const json& meta = o["metadata"];
  if (!meta.contains("annotations")) return "";
  return meta["annotations"].value(key, "");
}

std::string Label(const json& o, const std::string& key) {
  const json& meta = o["metadata"];
  if (!meta.contains("labels")) return "";
  return meta["labels"].value(key, "");
}

Case Without(const Case& c, const Indices& drop) {
  Case out = c;
  out.objects.clear();
  std::set<size_t> gone(drop.begin(), drop.end());
  for (size_t i = 0; i < c.objects.size(); ++i) {
    if (gone.count(i) == 0) out.objects.push_back(c.objects[i]);
  }
  return out;
}

// Jobs as units: a PodGroup and the pods that name it; an implicit job is its one pod.
std::vector<Indices> Jobs(const Case& c) {
  std::map<std::string, Indices> by_group;
  std::vector<Indices> out;
  for (size_t i = 0; i < c.objects.size(); ++i) {
    const json& o = c.objects[i];
    if (Kind(o) == "PodGroup") by_group["group " + Key(o)].push_back(i);
    if (Kind(o) != "Pod") continue;
    const std::string group = Annotation(o, "pod-group-name");
    if (group.empty()) {
      out.push_back({i});
    } else {
      by_group["group " + o["metadata"].value("namespace", "") + "/" + group].push_back(i);
    }
  }
  for (auto& [key, indices] : by_group) out.push_back(indices);
  std::sort(out.begin(), out.end());
  return out;
}

// Nodes as units: the Node and the pods bound to it.
std::vector<Indices> Nodes(const Case& c) {
  std::map<std::string, Indices> by_node;
  for (size_t i = 0; i < c.objects.size(); ++i) {
    const json& o = c.objects[i];
    if (Kind(o) == "Node") by_node[Name(o)].push_back(i);
  }
  for (size_t i = 0; i < c.objects.size(); ++i) {
    const json& o = c.objects[i];
    if (Kind(o) != "Pod" || !o["spec"].contains("nodeName")) continue;
    auto it = by_node.find(o["spec"]["nodeName"].get<std::string>());
    if (it != by_node.end()) it->second.push_back(i);
  }
  std::vector<Indices> out;
  for (auto& [name, indices] : by_node) out.push_back(indices);
  return out;
}

class Shrinker {
 public:
  Shrinker(const StillDiverges& test, int budget, ShrinkStats& stats)
      : test_(test), budget_(budget), stats_(stats) {}

  bool Exhausted() const { return stats_.tests >= budget_; }

  bool Try(Case& current, const Case& candidate) {
    if (Exhausted()) return false;
    ++stats_.tests;
    if (!test_(candidate)) return false;
    ++stats_.accepted;
    current = candidate;
    return true;
  }

  // Tries each reduction once, keeping those that preserve the divergence.
  bool Each(Case& current, const std::vector<Reduction>& reductions) {
    bool progress = false;
    for (const Reduction& r : reductions) {
      if (std::optional<Case> candidate = r(current)) progress |= Try(current, *candidate);
    }
    return progress;
  }

  // ddmin over the units `units(current)` gives: removes chunks of them.
  bool Ddmin(Case& current, const std::function<std::vector<Indices>(const Case&)>& units) {
    bool progress = false;
    size_t n = 2;
    for (;;) {
      const std::vector<Indices> all = units(current);
      if (all.empty() || Exhausted()) break;
      n = std::min(n, all.size());
      bool removed = false;
      for (size_t chunk = 0; chunk < n && !removed; ++chunk) {
        Indices drop;
        for (size_t u = chunk * all.size() / n; u < (chunk + 1) * all.size() / n; ++u) {
          drop.insert(drop.end(), all[u].begin(), all[u].end());
        }
        removed = Try(current, Without(current, drop));
      }
      if (removed) {
        progress = true;
        n = std::max<size_t>(n - 1, 2);
      } else if (n >= all.size()) {
        break;
      } else {
        n = std::min(n * 2, all.size());
      }
    }
    return progress;
  }

 private:
  const StillDiverges& test_;
  int budget_;
  ShrinkStats& stats_;
};

std::vector<Reduction> RunReductions(const Case& c) {
  std::vector<Reduction> out;
  for (int cycles = 1; cycles < c.run.cycles; ++cycles) {
    out.push_back([cycles](const Case& x) -> std::optional<Case> {
      if (x.run.cycles <= cycles) return std::nullopt;
      Case y = x;
      y.run.cycles = cycles;
      return y;
    });
  }
  for (const std::string& action : c.run.actions) {
    out.push_back([action](const Case& x) -> std::optional<Case> {
      auto it = std::find(x.run.actions.begin(), x.run.actions.end(), action);
      if (x.run.actions.size() < 2 || it == x.run.actions.end()) return std::nullopt;
      Case y = x;
      y.run.actions.erase(y.run.actions.begin() + (it - x.run.actions.begin()));
      return y;
    });
  }
  out.push_back([](const Case& x) -> std::optional<Case> {
    if (!x.run.delete_evicted) return std::nullopt;
    Case y = x;
    y.run.delete_evicted = false;
    return y;
  });
  out.push_back([](const Case& x) -> std::optional<Case> {
    if (!x.run.config) return std::nullopt;
    Case y = x;
    y.run.config.reset();
    return y;
  });
  return out;
}

// Queues that no queue, PodGroup or pod refers to.
std::vector<Indices> UnreferencedQueues(const Case& c) {
  std::set<std::string> referenced;
  for (const json& o : c.objects) {
    if (Kind(o) == "Queue" && o["spec"].contains("parentQueue")) {
      referenced.insert(o["spec"]["parentQueue"].get<std::string>());
    }
    if (Kind(o) == "PodGroup") referenced.insert(o["spec"].value("queue", ""));
    if (Kind(o) == "Pod") referenced.insert(Label(o, "kai.scheduler/queue"));
  }
  std::vector<Indices> out;
  for (size_t i = 0; i < c.objects.size(); ++i) {
    if (Kind(c.objects[i]) == "Queue" && referenced.count(Name(c.objects[i])) == 0) {
      out.push_back({i});
    }
  }
  return out;
}

std::vector<Indices> UnreferencedPriorityClasses(const Case& c) {
  std::set<std::string> referenced;
  for (const json& o : c.objects) {
    if (o.contains("spec") && o["spec"].contains("priorityClassName")) {
      referenced.insert(o["spec"]["priorityClassName"].get<std::string>());
    }
  }
  std::vector<Indices> out;
  for (size_t i = 0; i < c.objects.size(); ++i) {
    if (Kind(c.objects[i]) == "PriorityClass" && referenced.count(Name(c.objects[i])) == 0) {
      out.push_back({i});
    }
  }
  return out;
}

struct Simplification {
  std::string kind;                 // the objects it applies to
  std::function<bool(json&)> edit;  // false when there was nothing to change
};

bool Erase(json& object, const std::vector<std::string>& path) {
  json* at = &object;
  for (size_t k = 0; k + 1 < path.size(); ++k) {
    if (!at->is_object() || !at->contains(path[k])) return false;
    at = &(*at)[path[k]];
  }
  return at->is_object() && at->erase(path.back()) > 0;
}

bool Set(json& at, const json& value) {
  if (at == value) return false;
  at = value;
  return true;
}

bool OneWholeGpu(json& pod) {  // N whole GPUs -> 1
  bool changed = false;
  for (json& container : pod["spec"]["containers"]) {
    for (const char* part : {"requests", "limits"}) {
      json& r = container["resources"][part];
      if (r.is_object() && r.contains("nvidia.com/gpu")) changed |= Set(r["nvidia.com/gpu"], "1");
    }
  }
  return changed;
}

bool PlentyOfCpuAndMemory(json& node) {  // only GPUs constrain
  bool changed = false;
  for (const char* part : {"allocatable", "capacity"}) {
    json& r = node["status"][part];
    if (r.contains("cpu")) changed |= Set(r["cpu"], "128");
    if (r.contains("memory")) changed |= Set(r["memory"], "1024Gi");
  }
  return changed;
}

// A queue's gpu `field` made simpler: no limit, weight 1, a whole quota (negative -> 0).
bool SimplerGpu(json& queue, const std::string& field) {
  if (!queue["spec"].contains("resources") || !queue["spec"]["resources"].contains("gpu")) {
    return false;
  }
  json& gpu = queue["spec"]["resources"]["gpu"];
  if (!gpu.contains(field)) return false;
  json simpler = field == "limit" ? json(-1) : json(1);
  if (field == "quota") {
    const double q = gpu[field].get<double>();
    simpler = q < 0 ? json(q == -1 ? -1 : 0) : json(static_cast<int64_t>(q));
  }
  return Set(gpu[field], simpler);
}

const std::vector<Simplification>& AllSimplifications() {
  static const std::vector<Simplification> kAll = [] {
    std::vector<Simplification> out;
    for (const char* r : {"cpu", "memory"}) {
      out.push_back({"Pod", [r](json& o) {
                       bool changed = false;
                       for (json& container : o["spec"]["containers"]) {
                         changed |= Erase(container, {"resources", "requests", r});
                       }
                       return changed;
                     }});
    }
    for (const char* field : {"tolerations", "nodeSelector", "affinity", "priorityClassName"}) {
      out.push_back({"Pod", [field](json& o) { return Erase(o, {"spec", field}); }});
    }
    out.push_back({"Pod", OneWholeGpu});
    out.push_back({"Node", [](json& o) { return Erase(o, {"spec", "taints"}); }});
    out.push_back({"Node", PlentyOfCpuAndMemory});
    for (const char* r : {"cpu", "memory"}) {
      out.push_back({"Queue", [r](json& o) {
                       if (!o["spec"].contains("resources")) return false;
                       return Set(o["spec"]["resources"][r],
                                  {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}});
                     }});
    }
    for (const char* field : {"limit", "overQuotaWeight", "quota"}) {
      out.push_back({"Queue", [field](json& o) { return SimplerGpu(o, field); }});
    }
    for (const char* field : {"priority", "preemptMinRuntime", "reclaimMinRuntime"}) {
      out.push_back({"Queue", [field](json& o) { return Erase(o, {"spec", field}); }});
    }
    for (const char* field : {"priorityClassName", "preemptibility"}) {
      out.push_back({"PodGroup", [field](json& o) { return Erase(o, {"spec", field}); }});
    }
    return out;
  }();
  return kAll;
}

// Each simplification on every object it applies to at once, then (where that did not keep the
// divergence) object by object.
std::vector<Reduction> Simplifications(const Case& c) {
  std::vector<Reduction> out;
  for (const Simplification& s : AllSimplifications()) {
    out.push_back([&s](const Case& x) -> std::optional<Case> {
      Case y = x;
      bool changed = false;
      for (json& o : y.objects) {
        if (Kind(o) == s.kind) changed |= s.edit(o);
      }
      return changed ? std::optional<Case>(y) : std::nullopt;
    });
  }
  for (const Simplification& s : AllSimplifications()) {
    for (size_t i = 0; i < c.objects.size(); ++i) {
      if (Kind(c.objects[i]) != s.kind) continue;
      out.push_back([&s, i](const Case& x) -> std::optional<Case> {
        if (i >= x.objects.size() || Kind(x.objects[i]) != s.kind) return std::nullopt;
        Case y = x;
        return s.edit(y.objects[i]) ? std::optional<Case>(y) : std::nullopt;
      });
    }
  }
  return out;
}

// Pods of explicit groups, one at a time (the group may become a gang that is not ready).
std::vector<Indices> GroupPods(const Case& c) {
  std::vector<Indices> out;
  for (size_t i = 0; i < c.objects.size(); ++i) {
    const json& o = c.objects[i];
    if (Kind(o) == "Pod" && !Annotation(o, "pod-group-name").empty()) out.push_back({i});
  }
  return out;
}

}  // namespace

Case Shrink(const Case& c, const StillDiverges& test, int budget, ShrinkStats* stats) {
  ShrinkStats local;
  ShrinkStats& s = stats != nullptr ? *stats : local;
  Shrinker shrinker(test, budget, s);
  Case current = c;
  for (bool progress = true; progress && !shrinker.Exhausted();) {
    progress = shrinker.Each(current, RunReductions(current));
    progress |= shrinker.Ddmin(current, Jobs);
    progress |= shrinker.Ddmin(current, Nodes);
    progress |= shrinker.Ddmin(current, GroupPods);
    // Ddmin looks again after each removal, so a parent whose last child went is tried too.
    progress |= shrinker.Ddmin(current, UnreferencedQueues);
    progress |= shrinker.Ddmin(current, UnreferencedPriorityClasses);
    progress |= shrinker.Each(current, Simplifications(current));
  }
  return current;
}

}  // namespace quotient::kaidiff
