// The small process runner `quotient validate` starts dcgmi with: exit codes, output captured
// from both streams, a deadline that kills the whole process group, and PATH lookup.
#include "nodeagent/run_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <string>

#include "nodehealth/test_support.h"

namespace quotient::nodeagent {
namespace {

using nodehealth::testing::ScratchDir;
using nodehealth::testing::WriteFile;
using ::testing::HasSubstr;

ProcessResult Shell(const std::string& script,
                    std::chrono::milliseconds deadline = std::chrono::seconds(20),
                    std::size_t max_output = 64 * 1024) {
  return RunProcess({"/bin/sh", "-c", script}, deadline, max_output);
}

// Whether `pid` is still a live process (a zombie awaiting its reaper is not).
bool Running(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string ignored, name, state;
  if (!(stat >> ignored >> name >> state)) return false;
  return state != "Z";
}

TEST(RunProcessTest, CapturesBothStreamsAndTheExitCode) {
  const ProcessResult r = Shell("echo out; echo err >&2; exit 3");
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "out\nerr\n");
}

TEST(RunProcessTest, AProgramThatCannotBeExecutedDoesNotStart) {
  const ProcessResult r = RunProcess({"/nonexistent/dcgmi", "diag"}, std::chrono::seconds(5));
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.error, HasSubstr("/nonexistent/dcgmi"));
  EXPECT_THAT(r.error, HasSubstr("No such file"));
}

TEST(RunProcessTest, TheDeadlineKillsTheProcessAndWhatItStarted) {
  const auto start = std::chrono::steady_clock::now();
  // The helper keeps the output open: only killing the group ends the wait before 30 s.
  const ProcessResult r = Shell("sleep 30 & echo $!; wait", std::chrono::milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_FALSE(r.exit_code);
  std::string helper = r.output;
  while (!helper.empty() && helper.back() == '\n') helper.pop_back();
  ASSERT_FALSE(helper.empty());
  for (int i = 0; i < 100 && Running(helper); ++i) usleep(20'000);
  EXPECT_FALSE(Running(helper)) << "helper " << helper << " survived the deadline";
}

TEST(RunProcessTest, OnlyTheTailOfALongOutputIsKept) {
  const ProcessResult r =
      Shell("i=0; while [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done; echo last",
            std::chrono::seconds(20), 100);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LE(r.output.size(), 100u);
  EXPECT_THAT(r.output, ::testing::EndsWith("line 1999\nlast\n"));
}

TEST(FindOnPathTest, FindsTheFirstExecutableFileInPathOrder) {
  ScratchDir a, b;
  WriteFile(a.path() / "dcgmi", "not executable");
  WriteFile(b.path() / "dcgmi", "#!/bin/sh\n");
  ASSERT_EQ(chmod((b.path() / "dcgmi").c_str(), 0755), 0);
  const std::string path = a.path().string() + ":" + b.path().string();
  EXPECT_EQ(FindOnPath("dcgmi", path), (b.path() / "dcgmi").string());
  EXPECT_EQ(FindOnPath("nvidia-smi", path), std::nullopt);
  EXPECT_EQ(FindOnPath("/opt/dcgm/dcgmi", path), "/opt/dcgm/dcgmi");  // a path is taken as is
}

TEST(LastLinesTest, KeepsTheLastNonEmptyLinesOnOneLine) {
  EXPECT_EQ(LastLines("a\nb\n\nc  \r\nd\n", 3), "b | c | d");
  EXPECT_EQ(LastLines("", 3), "");
  EXPECT_EQ(LastLines("only", 3), "only");
}

}  // namespace
}  // namespace quotient::nodeagent
