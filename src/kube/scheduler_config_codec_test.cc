#include "kube/scheduler_config_codec.h"

#include <gtest/gtest.h>

namespace quotient::kube {
namespace {

using framework::SchedulerConfig;

TEST(ParseSchedulerConfig, EmptyFileGivesDefaults) {
  for (const char* text : {"", "# nothing here\n", "---\n"}) {
    Result<SchedulerConfig> config = ParseSchedulerConfig(text, "config.yaml");
    ASSERT_TRUE(config.ok()) << config.message();
    EXPECT_EQ(config->actions, SchedulerConfig::DefaultActions());
    EXPECT_TRUE(config->tiers.empty());
    EXPECT_TRUE(config->queue_depth_per_action.empty());
    EXPECT_FALSE(config->scheduler_name.has_value());
  }
}

TEST(ParseSchedulerConfig, ReadsKaiConfig) {
  Result<SchedulerConfig> config = ParseSchedulerConfig(R"(
actions: "allocate,  consolidation ,reclaim"
tiers:
- plugins:
  - name: proportion
    arguments: {kValue: 1.0, relcaimerSaturationMultiplier: "1.5"}
  - name: priority
- plugins:
  - name: nodeplacement
    arguments: {gpu: binpack, cpu: spread}
  - name: minruntime
    arguments: {defaultPreemptMinRuntime: 10m, enabled: true}
queueDepthPerAction: {allocate: 25, reclaim: 8}
usageDBConfig: {clientType: prometheus, usageParams: {windowSize: 1w}}
schedulerName: kai-scheduler
)",
                                                        "config.yaml");
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->actions, (std::vector<std::string>{"allocate", "consolidation", "reclaim"}));
  ASSERT_EQ(config->tiers.size(), 2u);
  ASSERT_EQ(config->tiers[0].plugins.size(), 2u);
  EXPECT_EQ(config->tiers[0].plugins[0].name, "proportion");
  EXPECT_EQ(config->tiers[0].plugins[0].arguments,
            (std::map<std::string, std::string>{{"kValue", "1.0"},
                                                {"relcaimerSaturationMultiplier", "1.5"}}));
  EXPECT_TRUE(config->tiers[0].plugins[1].arguments.empty());
  const framework::PluginOption* minruntime = config->FindPlugin("minruntime");
  ASSERT_NE(minruntime, nullptr);
  EXPECT_EQ(minruntime->arguments.at("defaultPreemptMinRuntime"), "10m");
  EXPECT_EQ(minruntime->arguments.at("enabled"), "true");
  EXPECT_EQ(config->FindPlugin("nodeplacement")->arguments.at("cpu"), "spread");
  EXPECT_EQ(config->queue_depth_per_action,
            (std::map<std::string, int>{{"allocate", 25}, {"reclaim", 8}}));
  EXPECT_EQ(config->scheduler_name, "kai-scheduler");
}

TEST(ParseSchedulerConfig, MissingActionsKeepDefaultsWhenTiersAreGiven) {
  Result<SchedulerConfig> config =
      ParseSchedulerConfig("tiers:\n- plugins:\n  - name: gpuspread\n", "c.yaml");
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->actions, SchedulerConfig::DefaultActions());
  EXPECT_NE(config->FindPlugin("gpuspread"), nullptr);
  EXPECT_EQ(config->FindPlugin("gpupack"), nullptr);
}

TEST(ParseSchedulerConfig, UnknownActionIsAnErrorNamingIt) {
  Result<SchedulerConfig> config =
      ParseSchedulerConfig("actions: \"allocate, backfill, reclame\"\n", "config.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.message(),
            "config.yaml: actions: unknown actions \"backfill\", \"reclame\" (valid: allocate, "
            "consolidation, reclaim, preempt, stalegangeviction)");
}

TEST(ParseSchedulerConfig, MalformedConfigsAreErrors) {
  const char* bad[] = {
      "actions: [allocate]\n",
      "tiers: {plugins: []}\n",
      "tiers:\n- plugins:\n  - arguments: {a: b}\n",
      "tiers:\n- plugins:\n  - name: proportion\n    arguments: {kValue: [1]}\n",
      "queueDepthPerAction: {allocate: many}\n",
      "queueDepthPerAction: {allocate: -1}\n",
      "schedulerName: {a: b}\n",
      "- just\n- a list\n",
      "actions: [unclosed\n",
  };
  for (const char* text : bad) {
    Result<SchedulerConfig> config = ParseSchedulerConfig(text, "c.yaml");
    EXPECT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.message().rfind("c.yaml: ", 0), 0u) << config.message();
  }
}

// KAI's --stuck-in-releasing-threshold (cmd/scheduler/app/options/options.go), default 2m.
TEST(ParseSchedulerConfig, StuckInReleasingThreshold) {
  Result<SchedulerConfig> defaults = ParseSchedulerConfig("", "c.yaml");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->stuck_in_releasing_threshold, std::chrono::seconds(120));
  const std::pair<const char*, int64_t> good[] = {
      {"stuckInReleasingThreshold: 5m\n", 300},
      {"stuckInReleasingThreshold: 1h30m\n", 5400},
      // Deletion times are whole seconds: more than 90.5s ago is more than 90s ago.
      {"stuckInReleasingThreshold: 90.5s\n", 90},
      {"stuckInReleasingThreshold: 500ms\n", 0},
  };
  for (const auto& [text, seconds] : good) {
    Result<SchedulerConfig> config = ParseSchedulerConfig(text, "c.yaml");
    ASSERT_TRUE(config.ok()) << text << config.message();
    EXPECT_EQ(config->stuck_in_releasing_threshold, std::chrono::seconds(seconds)) << text;
  }
  Result<SchedulerConfig> zero = ParseSchedulerConfig("stuckInReleasingThreshold: 0s\n", "c.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.message(),
            "c.yaml: stuckInReleasingThreshold: must be a positive duration, got \"0s\"");
  EXPECT_FALSE(ParseSchedulerConfig("stuckInReleasingThreshold: -1m\n", "c.yaml").ok());
  Result<SchedulerConfig> unitless =
      ParseSchedulerConfig("stuckInReleasingThreshold: 120\n", "c.yaml");
  ASSERT_FALSE(unitless.ok());
  EXPECT_EQ(unitless.message().rfind("c.yaml: stuckInReleasingThreshold: not a duration", 0), 0u)
      << unitless.message();
}

TEST(ParseSchedulerConfig, NodePlacementStrategiesAreChecked) {
  const auto parse = [](const std::string& arguments) {
    return ParseSchedulerConfig(
        "tiers:\n- plugins:\n  - name: nodeplacement\n    arguments: " + arguments + "\n",
        "c.yaml");
  };
  Result<SchedulerConfig> good =
      parse("{gpu: fragmentation, cpu: spread, a100.gpu: binpack, a100.cpu: binpack}");
  ASSERT_TRUE(good.ok()) << good.message();
  EXPECT_EQ(good.value().tiers[0].plugins[0].arguments.at("gpu"), "fragmentation");
  // A misspelt strategy would otherwise mean bin-pack without a word.
  Result<SchedulerConfig> typo = parse("{gpu: fragmentaton}");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.message(),
            "c.yaml: tiers[0].plugins[0].arguments.gpu: unknown strategy \"fragmentaton\" (valid: "
            "binpack, spread, fragmentation)");
  // Fragmentation is a GPU strategy only.
  Result<SchedulerConfig> cpu = parse("{cpu: fragmentation}");
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.message().find("arguments.cpu: unknown strategy \"fragmentation\" (valid: "
                               "binpack, spread)"),
            std::string::npos)
      << cpu.message();
  Result<SchedulerConfig> key = parse("{memory: binpack}");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.message().find("arguments.memory: unknown argument"), std::string::npos)
      << key.message();
}

TEST(LoadSchedulerConfigFile, MissingFileIsAnError) {
  Result<SchedulerConfig> config = LoadSchedulerConfigFile("/nonexistent/quotient/config.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.message(), "/nonexistent/quotient/config.yaml: no such file or directory");
}

}  // namespace
}  // namespace quotient::kube
