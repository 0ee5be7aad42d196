// Reading KAI's scheduler configuration file (kai-reference §8.1) into framework::SchedulerConfig.
//
//   actions: "allocate, consolidation, reclaim"      comma-separated; missing or empty: defaults
//   tiers: [{plugins: [{name: proportion, arguments: {kValue: "1.0"}}]}]
//   queueDepthPerAction: {allocate: 25}
//   schedulerName: kai-scheduler                     Quotient extension
//
// Plugin argument values are kept as strings (a number keeps its text, so "1.0" stays "1.0");
// argument names are not checked here, so a misspelling such as KAI's own
// `relcaimerSaturationMultiplier` passes through. Unknown action names are an error; unknown
// top-level keys (usageDBConfig, ...) are ignored, as KAI has many this scheduler does not use.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "framework/config.h"

namespace quotient::kube {

// Parses the YAML text of a config file; `source` prefixes error messages. An empty text gives
// the defaults.
Result<framework::SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text,
                                                        std::string_view source);

// Reads and parses a config file.
Result<framework::SchedulerConfig> LoadSchedulerConfigFile(const std::string& path);

}  // namespace quotient::kube
