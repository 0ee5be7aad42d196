// SchedulerConfig: KAI's scheduler configuration (kai-reference §8.1) as plain data.
//
// The kube layer reads it from YAML (`quotient schedule --config`, and later the ConfigMap the
// service mounts); the scheduler reads only this struct.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace quotient::framework {

struct PluginOption {
  std::string name;
  std::map<std::string, std::string> arguments;
};

struct Tier {
  std::vector<PluginOption> plugins;
};

struct SchedulerConfig {
  // Action names in execution order.
  std::vector<std::string> actions = DefaultActions();
  // When empty, the built-in default plugin list applies (KAI: a file without `tiers` falls back
  // to the defaults; a file with `tiers` replaces the whole list).
  std::vector<Tier> tiers;
  std::map<std::string, int> queue_depth_per_action;
  // Quotient extension: `schedulerName` in the file, overridden by --scheduler-name.
  std::optional<std::string> scheduler_name;
  // KAI's scheduler flags, read from the file as `maxConsolidationPreemptees` (0 disables
  // consolidation) and `defaultStalenessGracePeriod` (a Go duration; negative = never evict).
  int max_consolidation_preemptees = 16;
  std::chrono::seconds staleness_grace_period{60};
  // KAI's --stuck-in-releasing-threshold (default 2m), read as `stuckInReleasingThreshold`: a
  // Running pod deleted longer ago than this (at the snapshot's `now`) is StuckInReleasing, and
  // its resources are not pipelined onto (core::IsStuckInReleasing).
  std::chrono::seconds stuck_in_releasing_threshold{120};
  // Turns off the search shortcuts that must not change any decision (the placer's cheap
  // per-node pre-check and its cache of pods that fit nowhere, the job order's cached subtree
  // choices): the straightforward path tests compare the optimised one against. Not in KAI's
  // file format; tests and benchmarks set it.
  bool reference_search = false;

  static std::vector<std::string> DefaultActions() {
    return {"allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"};
  }
  // The arguments of the first plugin named `name`, or nullptr when the plugin is not configured.
  const PluginOption* FindPlugin(const std::string& name) const {
    for (const Tier& tier : tiers) {
      for (const PluginOption& plugin : tier.plugins) {
        if (plugin.name == name) return &plugin;
      }
    }
    return nullptr;
  }
};

}  // namespace quotient::framework
