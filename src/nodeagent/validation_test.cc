// `quotient validate`'s GPU checks against the fake libnvidia-ml.so.1, through the collector the
// command uses: each scenario breaks one thing on a healthy fake node, and the check that
// judges it fails naming the GPU and the numbers; every other check keeps its verdict.
//
// The fake's defaults (src/nvml/README.md): GPU i at bus 00000000:<i+1>:00.0 (normalised
// 0000:0<i+1>:00), nothing remapped or pending, PCIe gen 4 x16 at its maximum, recovery action
// NONE, and no NVLink (every NVLink call answers NOT_SUPPORTED).
#include "nodeagent/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nodehealth/test_support.h"
#include "nvml/fake_nvml_fixture.h"

namespace quotient::nodeagent {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ValidationTest : public nvml::FakeNvmlTest {
 protected:
  static NvmlPoll PollFake(const std::string& library = nvml::kFakeNvml) {
    NvmlCollectorOptions options;
    options.library = library;
    options.deadline = std::chrono::milliseconds(2000);
    NvmlCollector collector(options);
    return collector.Poll();
  }
  static ValidationOptions Expecting(int gpus) {
    ValidationOptions options;
    options.expected_gpus = gpus;
    return options;
  }
  // Two default devices, the second given `second` (JSON members of a scenario device).
  void SecondGpu(const std::string& second) {
    WriteScenario(R"({"devices": [{"uuid": "GPU-a"}, {"uuid": "GPU-b", )" + second + "}]}");
  }
};

// The checks named `name` whose detail names `subject` (empty: all of them).
std::vector<Check> Named(const std::vector<Check>& checks, const std::string& name,
                         const std::string& subject = "") {
  std::vector<Check> found;
  for (const Check& c : checks) {
    if (c.name == name && c.detail.find(subject) != std::string::npos) found.push_back(c);
  }
  return found;
}

// The one check `name` about `subject`; a test failure if there is not exactly one.
Check One(const std::vector<Check>& checks, const std::string& name,
          const std::string& subject = "") {
  const std::vector<Check> found = Named(checks, name, subject);
  EXPECT_EQ(found.size(), 1u) << name << " " << subject;
  return found.empty() ? Check{} : found.front();
}

TEST_F(ValidationTest, AHealthyFakeNodePassesEveryCheckAndSkipsOnlyTheNvlinksItDoesNotHave) {
  Set("FAKE_NVML_UUIDS", "GPU-a,GPU-b");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const std::vector<std::string> per_gpu = {
      "gpu-lost",        "remap-pending", "remap-failure", "retired-pages-pending",
      "recovery-action", "pcie-width",    "pcie-gen",      "nvlink"};
  ASSERT_EQ(checks.size(), 2 + 2 * per_gpu.size());
  EXPECT_EQ(checks[0].name, "nvml");
  EXPECT_EQ(checks[1].name, "gpu-count");
  for (size_t gpu = 0; gpu < 2; ++gpu) {
    for (size_t i = 0; i < per_gpu.size(); ++i) {
      const Check& c = checks[2 + gpu * per_gpu.size() + i];
      EXPECT_EQ(c.name, per_gpu[i]);
      EXPECT_THAT(c.detail, HasSubstr(gpu == 0 ? "[gpu=GPU-a bdf=0000:01:00]"
                                               : "[gpu=GPU-b bdf=0000:02:00]"));
    }
  }
  for (const Check& c : checks) {
    if (c.name == "nvlink") {
      EXPECT_EQ(c.verdict, Verdict::kSkip) << c.detail;
      EXPECT_THAT(c.detail, HasSubstr("not supported by this driver or GPU: "
                                      "nvmlDeviceGetNvLinkState"));
    } else {
      EXPECT_EQ(c.verdict, Verdict::kPass) << c.name << ": " << c.detail;
    }
  }
  EXPECT_TRUE(Passed(checks));
}

TEST_F(ValidationTest, AMissingGpuFailsTheCountNamingBothNumbers) {
  Set("FAKE_NVML_UUIDS", "GPU-a,GPU-b,GPU-c");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(4));
  const Check count = One(checks, "gpu-count");
  EXPECT_EQ(count.verdict, Verdict::kFail);
  EXPECT_THAT(count.detail, HasSubstr("3 GPUs found, 4 expected"));
  EXPECT_FALSE(Passed(checks));
}

TEST_F(ValidationTest, WithoutAnExpectedCountTheCountIsSkipped) {
  Set("FAKE_NVML_UUIDS", "GPU-a");
  const std::vector<Check> checks = CheckGpus(PollFake(), ValidationOptions{});
  EXPECT_EQ(One(checks, "gpu-count").verdict, Verdict::kSkip);
  EXPECT_TRUE(Passed(checks));
}

TEST_F(ValidationTest, APendingRemapFailsNamingTheGpuAndOnlyThatGpu) {
  SecondGpu(R"("remapped_rows": {"corr": 0, "unc": 1, "pending": true, "failure": false})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const Check b = One(checks, "remap-pending", "GPU-b");
  EXPECT_EQ(b.verdict, Verdict::kFail);
  EXPECT_THAT(b.detail, HasSubstr("[gpu=GPU-b bdf=0000:02:00]"));
  EXPECT_THAT(b.detail, HasSubstr("1 uncorrectable"));
  EXPECT_EQ(One(checks, "remap-pending", "GPU-a").verdict, Verdict::kPass);
  EXPECT_EQ(One(checks, "remap-failure", "GPU-b").verdict, Verdict::kPass);
  EXPECT_FALSE(Passed(checks));
}

TEST_F(ValidationTest, ARemapFailureFails) {
  SecondGpu(R"("remapped_rows": {"failure": true})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  EXPECT_EQ(One(checks, "remap-failure", "GPU-b").verdict, Verdict::kFail);
  EXPECT_EQ(One(checks, "remap-pending", "GPU-b").verdict, Verdict::kPass);
}

TEST_F(ValidationTest, RetiredPagesPendingFail) {
  SecondGpu(R"("retired_pages": {"pending": true})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  EXPECT_EQ(One(checks, "retired-pages-pending", "GPU-b").verdict, Verdict::kFail);
  EXPECT_EQ(One(checks, "retired-pages-pending", "GPU-a").verdict, Verdict::kPass);
}

TEST_F(ValidationTest, ARecoveryActionOtherThanNoneFailsNamingIt) {
  SecondGpu(R"("recovery_action": 1)");  // NVML_GPU_RECOVERY_ACTION_GPU_RESET
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const Check b = One(checks, "recovery-action", "GPU-b");
  EXPECT_EQ(b.verdict, Verdict::kFail);
  EXPECT_THAT(b.detail, HasSubstr("GPU_RESET"));
}

TEST_F(ValidationTest, APcieWidthBelowItsMaximumFailsNamingBoth) {
  SecondGpu(R"("pcie": {"cur_width": 8, "max_width": 16})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const Check b = One(checks, "pcie-width", "GPU-b");
  EXPECT_EQ(b.verdict, Verdict::kFail);
  EXPECT_THAT(b.detail, HasSubstr("x8"));
  EXPECT_THAT(b.detail, HasSubstr("x16"));
  EXPECT_EQ(One(checks, "pcie-width", "GPU-a").verdict, Verdict::kPass);
  EXPECT_FALSE(Passed(checks));
}

TEST_F(ValidationTest, APcieGenerationBelowItsMaximumIsSkippedUnlessTheMaximumIsRequired) {
  SecondGpu(R"("pcie": {"cur_gen": 1, "max_gen": 4})");
  const NvmlPoll poll = PollFake();
  const std::vector<Check> idle_ok = CheckGpus(poll, Expecting(2));
  const Check skipped = One(idle_ok, "pcie-gen", "GPU-b");
  EXPECT_EQ(skipped.verdict, Verdict::kSkip);
  EXPECT_THAT(skipped.detail, HasSubstr("gen 1, maximum gen 4"));
  EXPECT_TRUE(Passed(idle_ok));

  ValidationOptions strict = Expecting(2);
  strict.require_max_pcie_gen = true;
  const std::vector<Check> checks = CheckGpus(poll, strict);
  const Check failed = One(checks, "pcie-gen", "GPU-b");
  EXPECT_EQ(failed.verdict, Verdict::kFail);
  EXPECT_THAT(failed.detail, HasSubstr("gen 1, maximum gen 4"));
  EXPECT_EQ(One(checks, "pcie-gen", "GPU-a").verdict, Verdict::kPass);
}

TEST_F(ValidationTest, EveryNvlinkUpPassesAndOneDownFailsNamingIt) {
  WriteScenario(R"({"devices": [
      {"uuid": "GPU-a", "nvlink": [{"active": true}, {"active": true}]},
      {"uuid": "GPU-b", "nvlink": [{"active": true}, {"active": false}, {"active": true}]}]})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const Check a = One(checks, "nvlink", "GPU-a");
  EXPECT_EQ(a.verdict, Verdict::kPass);
  EXPECT_THAT(a.detail, HasSubstr("2 of 2 NVLinks active"));
  const Check b = One(checks, "nvlink", "GPU-b");
  EXPECT_EQ(b.verdict, Verdict::kFail);
  EXPECT_THAT(b.detail, HasSubstr("2 of 3 NVLinks active; down: 1"));
}

TEST_F(ValidationTest, ALostGpuFailsAndItsOtherChecksAreSkipped) {
  SecondGpu(R"("lost": true)");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  EXPECT_EQ(One(checks, "gpu-lost", "index-1").verdict, Verdict::kFail);
  EXPECT_EQ(One(checks, "gpu-lost", "GPU-a").verdict, Verdict::kPass);
  for (const char* name : {"remap-pending", "pcie-width", "recovery-action", "nvlink"}) {
    const Check c = One(checks, name, "index-1");
    EXPECT_EQ(c.verdict, Verdict::kSkip) << name;
    EXPECT_THAT(c.detail, HasSubstr("the GPU is lost")) << name;
  }
  EXPECT_FALSE(Passed(checks));
}

TEST_F(ValidationTest, AnUnsupportedCallSkipsItsChecksNamingTheCallAndIsListed) {
  SecondGpu(R"("unsupported": ["nvmlDeviceGetRemappedRows"])");
  const NvmlPoll poll = PollFake();
  const std::vector<Check> checks = CheckGpus(poll, Expecting(2));
  for (const char* name : {"remap-pending", "remap-failure"}) {
    const Check c = One(checks, name, "GPU-b");
    EXPECT_EQ(c.verdict, Verdict::kSkip) << name;
    EXPECT_THAT(c.detail, HasSubstr("nvmlDeviceGetRemappedRows"));
  }
  EXPECT_EQ(One(checks, "remap-pending", "GPU-a").verdict, Verdict::kPass);
  EXPECT_THAT(poll.not_supported, ::testing::Contains("nvmlDeviceGetRemappedRows"));
  EXPECT_TRUE(Passed(checks));
}

TEST_F(ValidationTest, ACallThatFailsIsAFailureNotASkip) {
  SecondGpu(R"("errors": {"nvmlDeviceGetMaxPcieLinkWidth": 999})");  // NVML_ERROR_UNKNOWN
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  const Check b = One(checks, "pcie-width", "GPU-b");
  EXPECT_EQ(b.verdict, Verdict::kFail);
  EXPECT_THAT(b.detail, HasSubstr("nvmlDeviceGetMaxPcieLinkWidth(device 1)"));
  EXPECT_EQ(One(checks, "pcie-gen", "GPU-b").verdict, Verdict::kPass);
}

TEST_F(ValidationTest, AGpuThatCannotBeOpenedFailsEveryReadingCheck) {
  SecondGpu(R"("errors": {"nvmlDeviceGetHandleByIndex_v2": 999})");
  const std::vector<Check> checks = CheckGpus(PollFake(), Expecting(2));
  for (const char* name : {"remap-pending", "retired-pages-pending", "recovery-action",
                           "pcie-width", "pcie-gen", "nvlink"}) {
    const Check c = One(checks, name, "index-1");
    EXPECT_EQ(c.verdict, Verdict::kFail) << name << ": " << c.detail;
    EXPECT_THAT(c.detail, HasSubstr("nvmlDeviceGetHandleByIndex_v2(device 1)")) << name;
  }
}

TEST_F(ValidationTest, NoNvmlFailsWhenGpusAreExpectedAndIsSkippedOnACpuNode) {
  const NvmlPoll missing = PollFake("/nonexistent/libnvidia-ml.so.1");
  const std::vector<Check> gpu_node = CheckGpus(missing, Expecting(8));
  ASSERT_EQ(gpu_node.size(), 2u);  // nvml, gpu-count: no GPU to judge
  EXPECT_EQ(gpu_node[0].verdict, Verdict::kFail);
  EXPECT_THAT(gpu_node[0].detail, HasSubstr("8 GPUs expected"));
  EXPECT_FALSE(Passed(gpu_node));

  for (const ValidationOptions& cpu : {ValidationOptions{}, Expecting(0)}) {
    const std::vector<Check> checks = CheckGpus(missing, cpu);
    EXPECT_EQ(One(checks, "nvml").verdict, Verdict::kSkip);
    EXPECT_EQ(One(checks, "gpu-count").verdict, Verdict::kSkip);
    EXPECT_TRUE(Passed(checks));
  }
}

TEST_F(ValidationTest, AnNvmlThatFailsToInitialiseFailsEvenWithoutExpectedGpus) {
  Set("FAKE_NVML_INIT_ERROR", "9");  // NVML_ERROR_DRIVER_NOT_LOADED
  const std::vector<Check> checks = CheckGpus(PollFake(), ValidationOptions{});
  const Check nvml = One(checks, "nvml");
  EXPECT_EQ(nvml.verdict, Verdict::kFail);
  EXPECT_THAT(nvml.detail, HasSubstr("Driver Not Loaded"));
}

TEST_F(ValidationTest, AHungNvmlCallFailsAndTheCountIsNotJudged) {
  // Only one call hangs, and not for long: the abandoned worker finishes soon after the test.
  SecondGpu(R"("hang_ms": 1500, "hang_calls": ["nvmlDeviceGetRemappedRows"])");
  NvmlCollectorOptions options;
  options.library = nvml::kFakeNvml;
  options.deadline = std::chrono::milliseconds(300);
  NvmlCollector collector(options);
  const std::vector<Check> checks = CheckGpus(collector.Poll(), Expecting(2));
  EXPECT_EQ(One(checks, "nvml").verdict, Verdict::kFail);
  EXPECT_EQ(One(checks, "gpu-count").verdict, Verdict::kSkip);
  EXPECT_FALSE(Passed(checks));
}

// Without the fake: an error half-way through the NVLink walk fails the check even though the
// links read before it are up (the rest are unknown).
TEST(ValidationPureTest, AnErrorWalkingTheNvlinksFailsEvenWhenTheLinksReadAreUp) {
  NvmlPoll poll;
  poll.gpus.push_back(nodehealth::testing::HealthyGpu(0));
  poll.errors[0].push_back(
      nvml::NvmlCallError{"nvmlDeviceGetNvLinkState(link 4)", 999,
                          "nvmlDeviceGetNvLinkState(device 0, link 4): Unknown Error"});
  const std::vector<Check> checks = CheckGpus(poll, ValidationOptions{});
  const Check nvlink = One(checks, "nvlink");
  EXPECT_EQ(nvlink.verdict, Verdict::kFail);
  EXPECT_THAT(nvlink.detail, HasSubstr("link 4): Unknown Error"));
  EXPECT_THAT(One(checks, "remap-pending").detail, Not(HasSubstr("Unknown Error")));
}

}  // namespace
}  // namespace quotient::nodeagent
