// The dcgm-diag check with a fake `dcgmi` (a shell script) in a folder given as the search path:
// off, auto and required, with a diagnostic that passes, fails or hangs.
#include "nodeagent/dcgm_diag.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "nodehealth/test_support.h"

namespace quotient::nodeagent {
namespace {

using nodehealth::testing::ScratchDir;
using ::testing::HasSubstr;
using ::testing::Not;

class DcgmDiagTest : public ::testing::Test {
 protected:
  // A `dcgmi` that records its arguments, prints `output` and exits with `code`.
  void FakeDcgmi(const std::string& output, int code) {
    const std::string script = (dir_.path() / "dcgmi").string();
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" > '" << Args() << "'\n"
                          << output << "\nexit " << code << "\n";
    ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  }
  std::string Args() const { return (dir_.path() / "args").string(); }
  std::string RecordedArgs() const {
    std::ifstream in(Args());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  DcgmOptions Options(DcgmMode mode) const {
    DcgmOptions options;
    options.mode = mode;
    options.path = "/nonexistent:" + dir_.path().string();  // searched in order
    return options;
  }
  ScratchDir dir_;
};

TEST_F(DcgmDiagTest, OffSkipsWithoutRunningDcgmi) {
  FakeDcgmi("", 1);
  const Check c = RunDcgmDiag(Options(DcgmMode::kOff));
  EXPECT_EQ(c.name, "dcgm-diag");
  EXPECT_EQ(c.verdict, Verdict::kSkip);
  EXPECT_EQ(RecordedArgs(), "");  // never ran
}

TEST_F(DcgmDiagTest, WithoutDcgmiAutoSkipsAndRequiredFails) {
  const Check automatic = RunDcgmDiag(Options(DcgmMode::kAuto));
  EXPECT_EQ(automatic.verdict, Verdict::kSkip);
  EXPECT_THAT(automatic.detail, HasSubstr("dcgmi not found"));
  const Check required = RunDcgmDiag(Options(DcgmMode::kRequired));
  EXPECT_EQ(required.verdict, Verdict::kFail);
  EXPECT_THAT(required.detail, HasSubstr("dcgmi not found"));
}

TEST_F(DcgmDiagTest, AutoRunsDiagAtTheLevelAndPassesOnExitZero) {
  FakeDcgmi("echo 'Successfully ran diagnostic for group.'", 0);
  DcgmOptions options = Options(DcgmMode::kAuto);
  options.level = 2;
  const Check c = RunDcgmDiag(options);
  EXPECT_EQ(c.verdict, Verdict::kPass) << c.detail;
  EXPECT_THAT(c.detail, HasSubstr("dcgmi diag -r 2"));
  EXPECT_EQ(RecordedArgs(), "diag -r 2\n");
}

TEST_F(DcgmDiagTest, RequiredWithAPassingDcgmiPasses) {
  FakeDcgmi("", 0);
  EXPECT_EQ(RunDcgmDiag(Options(DcgmMode::kRequired)).verdict, Verdict::kPass);
  EXPECT_EQ(RecordedArgs(), "diag -r 1\n");
}

TEST_F(DcgmDiagTest, AFailingDiagFailsWithItsExitCodeAndLastOutputLines) {
  // Ten lines, the error on stderr last: the detail keeps the end, not the beginning.
  FakeDcgmi(
      "for i in 1 2 3 4 5 6 7 8 9; do echo \"line $i\"; done\n"
      "echo 'Error: Memory test failed on GPU 3' >&2",
      1);
  const Check c = RunDcgmDiag(Options(DcgmMode::kAuto));
  EXPECT_EQ(c.verdict, Verdict::kFail);
  EXPECT_THAT(c.detail, HasSubstr("exited 1"));
  EXPECT_THAT(c.detail, HasSubstr("line 9 | Error: Memory test failed on GPU 3"));
  EXPECT_THAT(c.detail, Not(HasSubstr("line 1 ")));
}

TEST_F(DcgmDiagTest, AHungDiagFailsAtItsTimeout) {
  FakeDcgmi("echo started; sleep 30", 0);
  DcgmOptions options = Options(DcgmMode::kAuto);
  options.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const Check c = RunDcgmDiag(options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(c.verdict, Verdict::kFail);
  EXPECT_THAT(c.detail, HasSubstr("ran past"));
  EXPECT_THAT(c.detail, HasSubstr("started"));
}

TEST(DcgmModeTest, ParsesTheThreeModesOnly) {
  EXPECT_EQ(ParseDcgmMode("auto"), DcgmMode::kAuto);
  EXPECT_EQ(ParseDcgmMode("off"), DcgmMode::kOff);
  EXPECT_EQ(ParseDcgmMode("required"), DcgmMode::kRequired);
  EXPECT_EQ(ParseDcgmMode("on"), std::nullopt);
}

}  // namespace
}  // namespace quotient::nodeagent
