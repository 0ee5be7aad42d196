#include <algorithm>
#include <cstdio>

#include "generator_internal.h"

namespace quotient::kaidiff {
namespace {

using nlohmann::json;

struct FeatureOdds {
  const char* name;
  int percent;  // chance that a case's profile turns it on
};

// The profile's features; tags the case records beyond these: tree-depth-N, whole-gpu,
// multi-cycle, all-actions and the names of the actions it runs.
const std::vector<FeatureOdds>& Odds() {
  static const std::vector<FeatureOdds> kOdds = {
      {"affinity", 12},
      {"cpu-memory-quota", 35},
      {"cpu-only", 25},
      {"delete-evicted", 12},
      {"elastic", 30},
      {"finished", 12},
      {"fraction", 35},
      {"fractional-quota", 15},
      {"gang", 60},
      {"gated", 6},
      {"gpu-memory", 20},
      {"implicit-group", 25},
      {"limits", 35},
      {"mig", 12},
      {"mig-single", 8},
      {"min-runtime", 15},
      {"min-subgroup", 8},
      {"mixed-gpu-memory", 15},
      {"multi-fraction", 12},
      {"negative-quota", 8},
      {"negative-weight", 10},
      {"no-resources", 10},
      {"node-pools", 12},
      {"non-preemptible", 30},
      {"preemptibility", 15},
      {"queue-priority", 25},
      {"releasing", 15},
      {"running", 75},
      {"selector", 15},
      {"spread", 15},
      {"stale-gang", 10},
      {"subgroups", 15},
      {"taints", 15},
      {"unlimited-quota", 50},
      {"unusable-node", 10},
      {"zero-quota", 25},
      {"zero-weight", 15},
  };
  return kOdds;
}

// KAI's default scheduler configuration (every plugin of its default tier), so that a case
// with a configuration differs from one without only in what the case sets.
json DefaultConfig() {
  json plugins = json::array();
  for (const char* name : {"predicates",
                           "proportion",
                           "priority",
                           "elastic",
                           "kubeflow",
                           "ray",
                           "nodeavailability",
                           "gpusharingorder",
                           "gpupack",
                           "resourcetype",
                           "subgrouporder",
                           "taskorder",
                           "nominatednode",
                           "dynamicresources",
                           "nodeplacement",
                           "minruntime",
                           "topology",
                           "snapshot",
                           "sg-nodelocalgreedy",
                           "sg-multinodegang"}) {
    plugins.push_back({{"name", name}});
  }
  return {{"actions", "allocate, consolidation, reclaim, preempt, stalegangeviction"},
          {"tiers", json::array({{{"plugins", plugins}}})}};
}

json& Plugin(json& config, const std::string& name) {
  for (json& plugin : config["tiers"][0]["plugins"]) {
    if (plugin["name"] == name) return plugin;
  }
  return config["tiers"][0]["plugins"][0];  // not reached: every name is in DefaultConfig
}

void ChooseRun(gen::Builder& b, RunOptions& run) {
  if (b.rng.Chance(45)) {
    run.actions = AllActions();
    b.Tag("all-actions");
  } else {
    for (const std::string& action : AllActions()) {
      if (b.rng.Chance(action == "allocate" ? 75 : 40)) run.actions.push_back(action);
    }
    if (run.actions.empty()) run.actions.push_back(b.rng.Pick(AllActions()));
  }
  for (const std::string& action : run.actions) b.Tag(action);
  const int roll = b.rng.Below(100);
  run.cycles = roll < 50 ? 1 : roll < 80 ? 2 : 3;
  if (run.cycles > 1) b.Tag("multi-cycle");
  if (b.On("delete-evicted") && run.cycles > 1) {
    run.delete_evicted = true;
    b.Tag("delete-evicted");
  }
  json config = DefaultConfig();
  bool configured = false;
  if (b.On("spread")) {
    json& args = Plugin(config, "nodeplacement")["arguments"];
    args["gpu"] = b.rng.Chance(70) ? "spread" : "binpack";
    args["cpu"] = b.rng.Chance(50) ? "spread" : "binpack";
    if (args["gpu"] == "binpack") args["cpu"] = "spread";
    configured = true;
    b.Tag("spread");
  } else {
    Plugin(config, "nodeplacement")["arguments"] = {{"gpu", "binpack"}, {"cpu", "binpack"}};
  }
  if (b.On("min-runtime") && b.rng.Chance(60)) {
    json& args = Plugin(config, "minruntime")["arguments"];
    args["defaultPreemptMinRuntime"] = b.rng.Pick(std::vector<std::string>{"10m", "30m", "2h"});
    args["defaultReclaimMinRuntime"] = b.rng.Pick(std::vector<std::string>{"5m", "30m", "0s"});
    configured = true;
    b.Tag("min-runtime");
  }
  if (configured) run.config = config;
}

json PriorityClass(const std::string& name, int value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", {{"name", name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"value", value},
          {"globalDefault", false},
          {"preemptionPolicy", "PreemptLowerPriority"}};
}

int PriorityValue(const std::string& name) {
  if (name == "train") return 50;
  if (name == "low") return 10;
  if (name == "build") return 100;
  return 125;  // inference
}

}  // namespace

namespace gen {

std::string TimeOfDay(int minute) {
  char text[32];
  std::snprintf(text, sizeof text, "2026-03-01T%02d:%02d:00Z", minute / 60, minute % 60);
  return text;
}

std::string SecondsBeforeNow(int seconds) {
  const int at = 12 * 3600 - seconds;  // kNow is 12:00:00 on 2026-03-01
  char text[32];
  std::snprintf(text, sizeof text, "2026-03-01T%02d:%02d:%02dZ", at / 3600, at / 60 % 60, at % 60);
  return text;
}

}  // namespace gen

const std::vector<std::string>& FeatureTags() {
  static const std::vector<std::string> kTags = [] {
    std::vector<std::string> tags = {"whole-gpu",    "multi-cycle",  "all-actions",
                                     "tree-depth-1", "tree-depth-2", "tree-depth-3"};
    for (const FeatureOdds& f : Odds()) tags.push_back(f.name);
    for (const std::string& a : AllActions()) tags.push_back(a);
    std::sort(tags.begin(), tags.end());
    return tags;
  }();
  return kTags;
}

Case GenerateCase(uint64_t seed, int index, const GeneratorOptions& options) {
  gen::Builder b(seed, index, options);
  for (const FeatureOdds& f : Odds()) {
    if (b.rng.Chance(f.percent) && options.disabled.count(f.name) == 0) b.features.insert(f.name);
  }
  Case c;
  c.seed = seed;
  c.index = index;
  ChooseRun(b, c.run);
  gen::AddNodes(b);
  gen::AddQueues(b);
  gen::AddJobs(b);
  for (const std::string& name : b.priority_classes) {
    c.objects.push_back(PriorityClass(name, PriorityValue(name)));
  }
  for (auto* list : {&b.nodes, &b.queues, &b.groups, &b.pods}) {
    c.objects.insert(c.objects.end(), list->begin(), list->end());
  }
  c.tags.assign(b.tags.begin(), b.tags.end());
  return c;
}

}  // namespace quotient::kaidiff
