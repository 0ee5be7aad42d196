// Graph memory under the interposer (graph_charges.h): an allocation node is charged when it is
// added, refused beyond the limit, and held until its graph and every executable instantiated
// from it are gone. The fake driver accepts graphs of any size (control test), so every refusal
// below is the interposer's.
#include "interposer_fixture.h"

namespace quotient::interposer::testing {
namespace {

TEST_F(InterposerTest, WithoutThePreloadGraphAllocationNodesOfAnySizeAreAccepted) {
  const Lines lines =
      run_child(QUOTIENT_PROBE_PATH, {"ctx:0", "graph", "graph-alloc:800", "graph-alloc:800"},
                {std::string("LD_LIBRARY_PATH=") + QUOTIENT_FAKE_DRIVER_DIR});
  EXPECT_EQ(lines, (Lines{"graph 0", "graph-alloc 0", "graph-alloc 0"}));
}

TEST_F(InterposerTest, AGraphAllocationNodeBeyondTheLimitIsRefusedWhenAdded) {
  // 600 MiB node + 424 MiB cuMemAlloc fill the 1 GiB; the second node and 1 more MiB do not fit.
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:600", "graph-alloc:600", "alloc:424", "alloc:1"}),
            (Lines{"graph 0", "graph-alloc 0", line("graph-alloc", kOutOfMemory), "alloc 0",
                   line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, GraphNodesAddedThroughTheGenericEntryPointsAreCharged) {
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-node-alloc:600", "graph-node-alloc2:600",
                   "graph-node-alloc2:424", "alloc:1"}),
            (Lines{"graph 0", "graph-node-alloc 0", line("graph-node-alloc2", kOutOfMemory),
                   "graph-node-alloc2 0", line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, AGraphChargeLastsUntilTheGraphAndItsExecutableAreDestroyed) {
  // A free node refunds nothing (the graph's pool keeps the memory); the executable keeps the
  // charge after its graph is destroyed; destroying it gives the 600 MiB back.
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:600", "graph-free", "alloc:600", "instantiate",
                   "launch", "graph-destroy", "alloc:600", "exec-destroy", "alloc:600"}),
            (Lines{"graph 0", "graph-alloc 0", "graph-free 0", line("alloc", kOutOfMemory),
                   "instantiate 0", "launch 0", "graph-destroy 0", line("alloc", kOutOfMemory),
                   "exec-destroy 0", "alloc 0"}));
  // The other order: the graph holds the charge after its executable is gone.
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:600", "instantiate", "exec-destroy", "alloc:600",
                   "graph-destroy", "alloc:600"}),
            (Lines{"graph 0", "graph-alloc 0", "instantiate 0", "exec-destroy 0",
                   line("alloc", kOutOfMemory), "graph-destroy 0", "alloc 0"}));
}

TEST_F(InterposerTest, EveryInstantiationEntryPointSharesTheCharge) {
  for (const std::string how : {"flags", "params", "params-ptsz", "v2", "v1"}) {
    EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:600", "instantiate:" + how, "graph-destroy",
                     "alloc:600"}),
              (Lines{"graph 0", "graph-alloc 0", "instantiate 0", "graph-destroy 0",
                     line("alloc", kOutOfMemory)}))
        << how;
  }
}

TEST_F(InterposerTest, AMovedChildGraphsChargeGoesWithItsParent) {
  // The child graph is owned (and destroyed) by its parent after the move.
  EXPECT_EQ(probe({"ctx:0", "graph", "graph", "graph-alloc:600", "graph-move-child", "alloc:600",
                   "graph-destroy", "alloc:600"}),
            (Lines{"graph 0", "graph 0", "graph-alloc 0", "graph-move-child 0",
                   line("alloc", kOutOfMemory), "graph-destroy 0", "alloc 0"}));
}

TEST_F(InterposerTest, ANodeTheDriverRefusesIsNotCharged) {
  EXPECT_EQ(probe({"ctx:0", "graph-alloc-bogus:600", "alloc:1024"}),
            (Lines{"graph-alloc-bogus 1", "alloc 0"}));
}

TEST_F(InterposerTest, GraphMemoryTrimPassesThroughAndKeepsTheCharges) {
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:600", "graph-trim:0", "alloc:600"}),
            (Lines{"graph 0", "graph-alloc 0", "graph-trim 0 1", line("alloc", kOutOfMemory)}));
}

TEST_F(InterposerTest, GraphAllocationsAreChargedOnThePoolsDevice) {
  // The node names device 1 (limit 1 GiB there); device 0 stays empty.
  EXPECT_EQ(probe({"ctx:0", "graph", "graph-alloc:1000:1", "alloc:1000", "graph-alloc:100:1"}),
            (Lines{"graph 0", "graph-alloc 0", "alloc 0", line("graph-alloc", kOutOfMemory)}));
}

}  // namespace
}  // namespace quotient::interposer::testing
