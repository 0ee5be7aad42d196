// Stream-ordered allocations and the memory their pool keeps (pool_charges.h), end to end.
#include "interposer_fixture.h"

namespace quotient::interposer::testing {
namespace {

TEST_F(InterposerTest, ADefaultPoolGivesFreedMemoryBack) {
  EXPECT_EQ(probe({"ctx:0", "async:600", "free-async", "alloc:1024"}),
            (Lines{"async 0", "free-async 0", "alloc 0"}));
}

TEST_F(InterposerTest, APoolsRetainedMemoryStaysChargedAndServesItsNextAllocations) {
  // Threshold 4 GiB: the 600 MiB freed stay in the pool. Another process-wide 600 does not fit;
  // the pool's own next 600 does (it reuses what it kept); a trim to 0 gives everything back.
  EXPECT_EQ(
      probe({"ctx:0", "pool-threshold:4096", "async:600", "free-async", "alloc:600", "async:600",
             "async:424", "async:1", "free-async", "free-async", "pool-trim:0", "alloc:1024"}),
      (Lines{"pool-threshold 0", "async 0", "free-async 0", line("alloc", kOutOfMemory), "async 0",
             "async 0", line("async", kOutOfMemory), "free-async 0", "free-async 0", "pool-trim 0",
             "alloc 0"}));
}

TEST_F(InterposerTest, APoolRetainsNoMoreThanItsThreshold) {
  // 200 MiB of the 600 freed stay; lowering the threshold to 0 releases them.
  EXPECT_EQ(probe({"ctx:0", "pool-threshold:200", "async:600", "free-async", "alloc:824", "alloc:1",
                   "pool-threshold:0", "alloc:200"}),
            (Lines{"pool-threshold 0", "async 0", "free-async 0", "alloc 0",
                   line("alloc", kOutOfMemory), "pool-threshold 0", "alloc 0"}));
}

TEST_F(InterposerTest, DestroyingAPoolReleasesWhatItRetained) {
  EXPECT_EQ(probe({"ctx:0", "pool-create", "pool-threshold:2048", "pool-async:600", "free-async",
                   "alloc:600", "pool-destroy", "alloc:600"}),
            (Lines{"pool-create 0", "pool-threshold 0", "pool-async 0", "free-async 0",
                   line("alloc", kOutOfMemory), "pool-destroy 0", "alloc 0"}));
}

}  // namespace
}  // namespace quotient::interposer::testing
