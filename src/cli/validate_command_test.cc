// `quotient validate` as the remediator's pod runs it: the built binary, against the fake
// libnvidia-ml.so.1 (its environment and scenario file are inherited by the child), a fake sysfs
// tree and PATH set to a folder that holds a fake dcgmi or nothing. Exit codes, the output lines
// and the JSON document; usage errors name their flag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "nodeagent/run_process.h"
#include "nodehealth/test_support.h"
#include "nvml/fake_nvml_fixture.h"

namespace quotient::cli {
namespace {

using nodehealth::testing::ScratchDir;
using nodehealth::testing::WriteFile;
using ::testing::HasSubstr;

struct Outcome {
  int exit_code = -1;
  std::vector<std::string> lines;  // stdout and stderr
  std::string output;
};

class ValidateCommandTest : public nvml::FakeNvmlTest {
 protected:
  void SetUp() override {
    FakeNvmlTest::SetUp();
    std::filesystem::create_directories(sys_.path() / "sys");
    std::filesystem::create_directories(sys_.path() / "bin");
  }
  // `quotient validate --nvml-library <fake> --sysfs-root <tree> <args>`, PATH = our bin folder.
  Outcome Validate(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{
        "/usr/bin/env",   "PATH=" + Bin(), QUOTIENT_BINARY_PATH, "validate",
        "--nvml-library", nvml::kFakeNvml, "--sysfs-root",       Sys()};
    argv.insert(argv.end(), args.begin(), args.end());
    const nodeagent::ProcessResult run = nodeagent::RunProcess(argv, std::chrono::seconds(60));
    EXPECT_TRUE(run.started) << run.error;
    Outcome outcome;
    outcome.exit_code = run.exit_code.value_or(-1);
    outcome.output = run.output;
    std::istringstream in(run.output);
    for (std::string line; std::getline(in, line);) outcome.lines.push_back(line);
    return outcome;
  }
  void ActivePort(const std::string& device) const {
    const auto dir = sys_.path() / "sys/class/infiniband" / device / "ports/1";
    WriteFile(dir / "state", "4: ACTIVE\n");
    WriteFile(dir / "phys_state", "5: LinkUp\n");
    WriteFile(dir / "rate", "400 Gb/sec (4X NDR)\n");
    WriteFile(dir / "link_layer", "InfiniBand\n");
  }
  void FakeDcgmi(int code) const {
    const auto script = sys_.path() / "bin/dcgmi";
    WriteFile(script,
              "#!/bin/sh\necho 'diagnostic result line'\nexit " + std::to_string(code) + "\n");
    ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  }
  std::string Sys() const { return (sys_.path() / "sys").string(); }
  std::string Bin() const { return (sys_.path() / "bin").string(); }

  ScratchDir sys_;
};

// The lines starting with `prefix`.
std::vector<std::string> Starting(const Outcome& o, const std::string& prefix) {
  std::vector<std::string> found;
  for (const std::string& line : o.lines) {
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  }
  return found;
}

TEST_F(ValidateCommandTest, AHealthyNodeExitsZeroWithALinePerCheckThenASummary) {
  Set("FAKE_NVML_UUIDS", "GPU-a,GPU-b");
  ActivePort("mlx5_0");
  const Outcome o = Validate({"--expected-gpus", "2", "--expected-ib-rate-gbps", "400"});
  EXPECT_EQ(o.exit_code, 0) << o.output;
  // nvml, gpu-count, 8 checks for each of 2 GPUs, ib-port and ib-rate, dcgm-diag; then SUMMARY.
  ASSERT_EQ(o.lines.size(), 22u) << o.output;
  const std::regex verdict_line("(PASS|FAIL|SKIP) [a-z-]+ .+");
  for (size_t i = 0; i + 1 < o.lines.size(); ++i) {
    EXPECT_TRUE(std::regex_match(o.lines[i], verdict_line)) << o.lines[i];
  }
  EXPECT_THAT(o.lines[0], HasSubstr("PASS nvml "));
  EXPECT_THAT(o.lines[1], HasSubstr("PASS gpu-count "));
  EXPECT_EQ(Starting(o, "PASS ib-port [ib=mlx5_0 port=1]").size(), 1u);
  EXPECT_EQ(Starting(o, "PASS ib-rate [ib=mlx5_0 port=1]").size(), 1u);
  EXPECT_EQ(Starting(o, "SKIP nvlink ").size(), 2u);  // the fake's GPUs have no NVLink
  EXPECT_EQ(Starting(o, "SKIP dcgm-diag dcgmi not found").size(), 1u);
  // PASS: nvml, gpu-count, 7 per GPU, 2 InfiniBand = 18; SKIP: 2 nvlink, dcgm-diag.
  EXPECT_EQ(o.lines.back(), "SUMMARY pass=18 fail=0 skip=3 (passed)");
}

TEST_F(ValidateCommandTest, APendingRemapExitsOneWithAFailLineNamingTheGpu) {
  WriteScenario(R"({"devices": [{"uuid": "GPU-a"},
                               {"uuid": "GPU-b", "remapped_rows": {"pending": true}}]})");
  const Outcome o = Validate({"--expected-gpus", "2"});
  EXPECT_EQ(o.exit_code, 1) << o.output;
  const std::vector<std::string> failed = Starting(o, "FAIL ");
  ASSERT_EQ(failed.size(), 1u) << o.output;
  EXPECT_THAT(failed[0], HasSubstr("FAIL remap-pending [gpu=GPU-b bdf=0000:02:00]"));
  EXPECT_THAT(o.lines.back(), HasSubstr("fail=1"));
  EXPECT_THAT(o.lines.back(), HasSubstr("(failed: remap-pending)"));
}

TEST_F(ValidateCommandTest, AMissingGpuExitsOneNamingBothCounts) {
  Set("FAKE_NVML_UUIDS", "GPU-a,GPU-b,GPU-c");
  const Outcome o = Validate({"--expected-gpus", "4"});
  EXPECT_EQ(o.exit_code, 1);
  const std::vector<std::string> count = Starting(o, "FAIL gpu-count ");
  ASSERT_EQ(count.size(), 1u) << o.output;
  EXPECT_THAT(count[0], HasSubstr("3 GPUs found, 4 expected"));
}

TEST_F(ValidateCommandTest, JsonOutputIsOneDocumentWithEveryCheckAndTheUnsupportedCalls) {
  Set("FAKE_NVML_UUIDS", "GPU-a");
  const Outcome json = Validate({"-o", "json", "--expected-gpus", "1"});
  EXPECT_EQ(json.exit_code, 0) << json.output;
  ASSERT_EQ(json.lines.size(), 1u) << json.output;
  const nlohmann::json doc = nlohmann::json::parse(json.lines[0]);
  EXPECT_EQ(doc.at("passed"), true);
  // nvml, gpu-count, 8 for the GPU, infiniband (no ports), dcgm-diag.
  ASSERT_EQ(doc.at("checks").size(), 12u);
  EXPECT_EQ(doc["checks"][0].at("name"), "nvml");
  EXPECT_EQ(doc["checks"][0].at("result"), "PASS");
  EXPECT_TRUE(doc["checks"][0].at("detail").is_string());
  EXPECT_EQ(doc["checks"][10].at("name"), "infiniband");
  EXPECT_EQ(doc["checks"][10].at("result"), "SKIP");
  EXPECT_THAT(doc.at("notSupported").get<std::vector<std::string>>(),
              ::testing::Contains("nvmlDeviceGetNvLinkState"));
}

TEST_F(ValidateCommandTest, DcgmRequiredWithoutDcgmiFails) {
  Set("FAKE_NVML_UUIDS", "GPU-a");
  const Outcome o = Validate({"--dcgm", "required"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(Starting(o, "FAIL dcgm-diag ").size(), 1u) << o.output;
}

TEST_F(ValidateCommandTest, DcgmiOnPathRunsAtTheLevelGivenAndDecidesTheExitCode) {
  Set("FAKE_NVML_UUIDS", "GPU-a");
  FakeDcgmi(0);
  const Outcome passing = Validate({"--dcgm-level", "3"});
  EXPECT_EQ(passing.exit_code, 0) << passing.output;
  EXPECT_EQ(Starting(passing, "PASS dcgm-diag dcgmi diag -r 3 ").size(), 1u) << passing.output;
  FakeDcgmi(1);
  const Outcome failing = Validate({});
  EXPECT_EQ(failing.exit_code, 1);
  const std::vector<std::string> line = Starting(failing, "FAIL dcgm-diag dcgmi diag -r 1 ");
  ASSERT_EQ(line.size(), 1u) << failing.output;
  EXPECT_THAT(line[0], HasSubstr("exited 1: diagnostic result line"));
  EXPECT_EQ(Validate({"--dcgm", "off"}).exit_code, 0);
}

TEST_F(ValidateCommandTest, BadFlagValuesExitTwoNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--dcgm-level", "4"},    {"--dcgm", "sometimes"},   {"--nvml-deadline", "soon"},
      {"--dcgm-timeout", "0s"}, {"--expected-gpus", "-1"}, {"--expected-ib-rate-gbps", "0"},
      {"--output", "yaml"}};
  for (const auto& [flag, value] : bad) {
    const Outcome o = Validate({flag + "=" + value});  // one word: "-1" is not read as a flag
    EXPECT_EQ(o.exit_code, 2) << flag << " " << value << ": " << o.output;
    EXPECT_THAT(o.output, HasSubstr(flag)) << flag;
  }
}

}  // namespace
}  // namespace quotient::cli
