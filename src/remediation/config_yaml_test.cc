#include "remediation/config_yaml.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace quotient::remediation {
namespace {

using std::chrono::minutes;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ErrorOf(const std::string& yaml) {
  const Result<Config> config = ReadConfigYaml(yaml);
  EXPECT_FALSE(config.ok()) << yaml;
  return config.message();
}

TEST(ConfigYaml, AnEmptyDocumentIsTheDefaults) {
  const Result<Config> config = ReadConfigYaml("");
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(*config, DefaultConfig());
}

TEST(ConfigYaml, TheDocumentedDefaultsAreTheDefaults) {
  const std::string text = ReadFile(QUOTIENT_REMEDIATION_TESTDATA "/defaults.yaml");
  ASSERT_FALSE(text.empty());
  const Result<Config> config = ReadConfigYaml(text);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(*config, DefaultConfig());
}

TEST(ConfigYaml, KeysChangeOnlyWhatTheyName) {
  const Result<Config> config = ReadConfigYaml(R"(
dryRun: true
drainTimeout: 1h
rails:
  maxPerDomain: 2
  breakerResetAt: "2025-03-01T10:00:00Z"
policy:
  GpuXidFatal:
    confirm: 1m
  GpuPcieDegraded:
    enabled: false
  CustomFault:
    ladder:
      - {step: external-webhook, timeout: 5m}
steps:
  external-webhook:
    kind: webhook
    url: https://hooks.example/repair
)");
  ASSERT_TRUE(config.ok()) << config.message();
  Config expected = DefaultConfig();
  expected.dry_run = true;
  expected.drain_timeout = minutes(60);
  expected.rails.max_per_domain = 2;
  expected.rails.breaker_reset_at =
      Time(std::chrono::sys_days(std::chrono::year(2025) / 3 / 1)) + std::chrono::hours(10);
  expected.policy["GpuXidFatal"].confirm = minutes(1);  // its ladder stays the default's
  expected.policy.erase("GpuPcieDegraded");
  expected.policy["CustomFault"].ladder = {{"external-webhook", minutes(5)}};
  expected.steps["external-webhook"] = {
      StepKind::kWebhook, {}, false, "", "https://hooks.example/repair"};
  EXPECT_EQ(*config, expected);
}

TEST(ConfigYaml, AStepReplacesTheDefaultOfItsNameAndAJobTemplateKeepsItsTypes) {
  const Result<Config> config = ReadConfigYaml(R"(
steps:
  gpu-reset:
    kind: job
    jobTemplate:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: reset, image: "repair:1", args: ["--port", "8080"], tty: true}
)");
  ASSERT_TRUE(config.ok()) << config.message();
  const StepSpec& step = config->steps.at("gpu-reset");
  EXPECT_EQ(step.kind, StepKind::kJob);
  EXPECT_TRUE(step.command.empty()) << "the default's command must not survive a replacement";
  EXPECT_EQ(nlohmann::json::parse(step.job_spec_json),
            nlohmann::json::parse(R"({"backoffLimit":0,"template":{"spec":{
              "restartPolicy":"Never","containers":[{"name":"reset","image":"repair:1",
              "args":["--port","8080"],"tty":true}]}}})"));
  EXPECT_EQ(config->steps.at("reboot"), DefaultConfig().steps.at("reboot"));
}

TEST(ConfigYaml, EveryLadderStepMustBeDefined) {
  EXPECT_EQ(ErrorOf("steps:\n  gpu-reset: {enabled: false}\n"),
            "remediation config: policy.GpuMemoryDegraded.ladder[0].step: no step named "
            "\"gpu-reset\" in steps");
  EXPECT_EQ(ErrorOf("steps:\n  fix: {kind: pod}\n"),
            "remediation config: steps.fix.command: a pod step needs a command");
  EXPECT_EQ(ErrorOf("steps:\n  fix: {kind: webhook, url: ftp://x}\n"),
            "remediation config: steps.fix.url: expected an http:// or https:// URL, got "
            "\"ftp://x\"");
  EXPECT_EQ(ErrorOf("steps:\n  fix: {kind: lambda}\n"),
            "remediation config: steps.fix.kind: expected pod, job or webhook, got \"lambda\"");
  EXPECT_EQ(ErrorOf("validation:\n  command: []\n"),
            "remediation config: validation.command: must not be empty");
}

TEST(ConfigYaml, ErrorsNameTheKey) {
  EXPECT_EQ(ErrorOf("rails:\n  maxPerDomian: 2\n"),
            "remediation config: rails.maxPerDomian: unknown key");
  EXPECT_EQ(ErrorOf("rails:\n  breakerPercent: 150\n"),
            "remediation config: rails.breakerPercent: expected an integer from 0 to 100, got "
            "\"150\"");
  EXPECT_EQ(ErrorOf("dryRun: yes\n"),
            "remediation config: dryRun: expected true or false, got \"yes\"");
  EXPECT_EQ(ErrorOf("holdDown: -5m\n"),
            "remediation config: holdDown: must not be negative, got \"-5m\"");
  EXPECT_NE(ErrorOf("drainTimeout: soon\n").find("remediation config: drainTimeout: "),
            std::string::npos);
  EXPECT_EQ(ErrorOf("policy:\n  GpuLost:\n    ladder:\n      - {step: Reboot, timeout: 1m}\n"),
            "remediation config: policy.GpuLost.ladder[0].step: \"Reboot\" is not a step name "
            "(a DNS label, not \"validate\")");
  EXPECT_EQ(ErrorOf("policy:\n  GpuLost:\n    ladder:\n      - {step: reboot}\n"),
            "remediation config: policy.GpuLost.ladder[0].timeout: missing or zero");
  EXPECT_EQ(ErrorOf("policy:\n  GpuLost:\n    ladder: reboot\n"),
            "remediation config: policy.GpuLost.ladder: expected a list of {step, timeout}");
  EXPECT_EQ(ErrorOf("rails: [1, 2]\n"), "remediation config: rails: expected a mapping");
  EXPECT_EQ(ErrorOf("rails:\n  backoffBase: 5h\n"),
            "remediation config: rails.backoffMax: must not be below rails.backoffBase");
  EXPECT_NE(ErrorOf("rails: {maxPerDomain: 1\n").find("remediation config: not YAML"),
            std::string::npos);
}

}  // namespace
}  // namespace quotient::remediation
