// The interposer end to end (interposer_fixture.h): direct calls, dlsym and cuGetProcAddress,
// queries, processes sharing a ledger, threads. Graph memory: interposer_graph_test.cc; symbol
// versions and arrays: interposer_lookup_test.cc.
#include "interposer_fixture.h"

namespace quotient::interposer::testing {
namespace {

TEST_F(InterposerTest, WithoutThePreloadTheFakeDriverAllowsEverything) {
  const Lines lines =
      run_child(QUOTIENT_PROBE_PATH, {"ctx:0", "alloc:400", "alloc:400", "alloc:400"},
                {std::string("LD_LIBRARY_PATH=") + QUOTIENT_FAKE_DRIVER_DIR});
  EXPECT_EQ(lines, (Lines{"alloc 0", "alloc 0", "alloc 0"}));
}

TEST_F(InterposerTest, AllocationsUpToTheLimitSucceedAndBeyondFailWithOutOfMemory) {
  const Lines lines = probe(
      {"ctx:0", "alloc:400", "alloc:400", "alloc:400", "alloc:224", "free-last", "alloc:400"});
  EXPECT_EQ(lines, (Lines{"alloc 0", "alloc 0", line("alloc", kOutOfMemory), "alloc 0",
                          "free-last 0", line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, FreeingRestoresHeadroom) {
  const Lines lines = probe({"ctx:0", "alloc:600", "free-last", "alloc:1024", "alloc:1"});
  EXPECT_EQ(lines, (Lines{"alloc 0", "free-last 0", "alloc 0", line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, MemGetInfoAndTotalMemReportTheLogicalGpu) {
  const Lines lines = probe({"ctx:0", "meminfo", "totalmem:0", "alloc:256", "meminfo"});
  EXPECT_EQ(lines, (Lines{meminfo(kGiB, kGiB), "totalmem 0 " + std::to_string(kGiB), "alloc 0",
                          meminfo(768 * kMiB, kGiB)}));
}

TEST_F(InterposerTest, CallsThroughGetProcAddressAndDlsymAreIntercepted) {
  const Lines lines = probe({"ctx:0", "alloc-gpa:400", "alloc-dlsym:400", "alloc-gpa:400",
                             "alloc-dlsym:400", "free-all", "alloc-dlsym:1024"});
  EXPECT_EQ(lines, (Lines{"alloc-gpa 0", "alloc-dlsym 0", line("alloc-gpa", kOutOfMemory),
                          line("alloc-dlsym", kOutOfMemory), "free-all 0", "alloc-dlsym 0"}));
}

TEST_F(InterposerTest, PerThreadStreamVariantsAreInterceptedAndKeepTheirSemantics) {
  // The per-thread request reaches the driver's _ptsz entry (counted by the fake) through our
  // _ptsz hook; the refused one never reaches the driver.
  const Lines lines = probe({"ctx:0", "async-ptsz:600", "async-ptsz:600", "ptsz-calls"});
  EXPECT_EQ(lines, (Lines{"async-ptsz 0", line("async-ptsz", kOutOfMemory), "ptsz-calls 1"}));
}

TEST_F(InterposerTest, FreesOfUnknownPointersPassThrough) {
  // 100 MiB allocated behind the interposer's back: its free succeeds and refunds nothing; a
  // pointer nobody allocated gets the driver's own error (CUDA_ERROR_INVALID_VALUE).
  const Lines lines =
      probe({"ctx:0", "alloc:600", "untracked-free:100", "bogus-free", "alloc:424", "alloc:1"});
  EXPECT_EQ(lines, (Lines{"alloc 0", "untracked-free 0", "bogus-free 1", "alloc 0",
                          line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, TwoProcessesShareOneLedger) {
  auto holder = holding_probe({"ctx:0", "alloc:400"});
  const Lines lines = probe({"ctx:0", "meminfo", "alloc:400", "alloc:400"});
  EXPECT_EQ(lines, (Lines{meminfo(624 * kMiB, kGiB), "alloc 0", line("alloc", kOutOfMemory)}));
  holder->finish();
}

TEST_F(InterposerTest, AKilledProcessesMemoryIsReclaimed) {
  auto holder = holding_probe({"ctx:0", "alloc:800"});
  EXPECT_EQ(probe({"ctx:0", "alloc:400"}), (Lines{line("alloc", kOutOfMemory)}));
  holder->kill_hard();
  const Lines lines = probe({"ctx:0", "meminfo", "alloc:1024"});
  EXPECT_EQ(lines, (Lines{meminfo(kGiB, kGiB), "alloc 0"}));
}

TEST_F(InterposerTest, ConcurrentThreadsNeverOvershoot) {
  // 16 threads × 20 tries × 10 MiB against 1024 MiB: exactly 102 fit.
  EXPECT_EQ(probe({"ctx:0", "threads:16:20:10", "meminfo"}),
            (Lines{"threads 102", meminfo(4 * kMiB, kGiB)}));
}

TEST_F(InterposerTest, ConcurrentProcessesAndThreadsNeverOvershoot) {
  std::vector<std::unique_ptr<ChildProcess>> children;
  for (int index = 0; index < 4; ++index) {
    children.push_back(std::make_unique<ChildProcess>(
        QUOTIENT_PROBE_PATH, std::vector<std::string>{"ctx:0", "threads:8:10:10", "hold"},
        environment()));
  }
  int succeeded = 0;
  for (auto& child : children) {
    for (const auto& output : child->read_until("holding")) {
      if (output.rfind("threads ", 0) == 0) succeeded += std::stoi(output.substr(8));
    }
  }
  EXPECT_EQ(succeeded, 102);
  for (auto& child : children) child->finish();
}

TEST_F(InterposerTest, NvmlMemoryInfoShowsTheLogicalGpu) {
  auto holder = holding_probe({"ctx:0", "alloc:256"});
  const std::string expected =
      std::to_string(kGiB) + " " + std::to_string(256 * kMiB) + " " + std::to_string(768 * kMiB);
  EXPECT_EQ(probe({"nvml:0"}), (Lines{"nvml " + expected, "nvml2 " + expected}));
  holder->finish();
}

TEST_F(InterposerTest, VirtualMemoryArraysPitchedAndManagedAllocationsAreCharged) {
  // cuMemCreate on device 0 charged by its size; released handles refund.
  EXPECT_EQ(probe({"vmm:0:600", "vmm:0:600", "vmm-release", "vmm:0:1024"}),
            (Lines{"vmm 0", line("vmm", kOutOfMemory), "vmm-release 0", "vmm 0"}));
  // 3D FLOAT array 1024 × 1024 × 100 = 400 MiB each.
  EXPECT_EQ(probe({"ctx:0", "array3d:1024:1024:100", "array3d:1024:1024:100",
                   "array3d:1024:1024:100", "array-destroy", "array3d:1024:1024:100"}),
            (Lines{"array3d 0", "array3d 0", line("array3d", kOutOfMemory), "array-destroy 0",
                   "array3d 0"}));
  // Pitched: 1000-byte rows, 1 Mi rows: pitch 1024 (fake) -> exactly 1 GiB charged.
  EXPECT_EQ(probe({"ctx:0", "pitch:1000:1048576", "alloc:1", "free-last", "alloc:1"}),
            (Lines{"pitch 0", line("alloc", kOutOfMemory), "free-last 0", "alloc 0"}));
  EXPECT_EQ(probe({"ctx:0", "managed:800", "managed:800"}),
            (Lines{"managed 0", line("managed", kOutOfMemory)}));
}

TEST_F(InterposerTest, LimitsArePerDevice) {
  const Lines lines =
      probe({"ctx:1", "alloc:2048", "ctx:0", "alloc:2048"}, {"QUOTIENT_GPU_MEMORY_LIMIT_0=1g"});
  EXPECT_EQ(lines, (Lines{"alloc 0", line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, ContextReserveCountsAgainstTheLimit) {
  EXPECT_EQ(probe({"ctx:0", "alloc:500", "alloc:400", "alloc:100"},
                  {"QUOTIENT_GPU_CONTEXT_RESERVE=300m"}),
            (Lines{"alloc 0", line("alloc", kOutOfMemory), "alloc 0"}));
}

TEST_F(InterposerTest, RefusalsAreLoggedWhenAskedTo) {
  const Lines lines = probe({"ctx:0", "alloc:2048"}, {"QUOTIENT_GPU_LOG=1"});
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_NE(lines[0].find("cuMemAlloc_v2 refused 2147483648 bytes on device 0"), std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1], line("alloc", kOutOfMemory));
}

TEST_F(InterposerTest, AProcessWithoutLibcudaIsUnaffected) {
  const Lines lines = run_child(
      "/bin/sh", {"-c", "echo still-running"},
      {std::string("LD_PRELOAD=") + QUOTIENT_INTERPOSER_PATH, "QUOTIENT_GPU_MEMORY_LIMIT=1g"});
  EXPECT_EQ(lines, (Lines{"still-running"}));
}

}  // namespace
}  // namespace quotient::interposer::testing
