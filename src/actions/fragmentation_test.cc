// The fragmentation measure on rooms small enough to compute by hand.
#include "actions/fragmentation.h"

#include <gtest/gtest.h>

namespace quotient::actions {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

RequestShape Gpus(int32_t n, int64_t each, int64_t cpu = 1000) { return {cpu, kGi, n, each}; }

// Two free GPUs, one with 0.3 left, one full; 10 cores and 10 GiB free.
FragmentRoom Room() { return {10'000, 10 * kGi, {1000, 1000, 300, 0}}; }

TEST(FragmentationTest, WhatEachShapeCannotUse) {
  // A whole GPU fits on the two free devices; the 0.3 left on the third is lost to it.
  EXPECT_EQ(LostTo(Room(), Gpus(1, 1000)), 300);
  // A half GPU: the same sliver is too small.
  EXPECT_EQ(LostTo(Room(), Gpus(1, 500)), 300);
  // A quarter fits in the sliver: nothing is lost.
  EXPECT_EQ(LostTo(Room(), Gpus(1, 250)), 0);
  // Three whole GPUs do not fit: all 2.3 free GPUs are lost to that shape.
  EXPECT_EQ(LostTo(Room(), Gpus(3, 1000)), 2300);
  // CPU-only: nothing lost when it fits; everything when the node's CPU cannot hold it.
  EXPECT_EQ(LostTo(Room(), {2000, kGi, 0, 0}), 0);
  EXPECT_EQ(LostTo(Room(), {20'000, kGi, 0, 0}), 2300);
  // Memory counts like CPU.
  EXPECT_EQ(LostTo(Room(), {1000, 11 * kGi, 1, 250}), 2300);
}

TEST(FragmentationTest, WeighsShapesByHowOftenTheyAreSeen) {
  const ShapeCounts mix = {{Gpus(1, 1000), 2}, {Gpus(1, 500), 1}, {Gpus(1, 250), 1}};
  // 2 x 300 + 1 x 300 + 1 x 0.
  EXPECT_EQ(Fragmentation(Room(), mix), 900);
  // A quarter placed in the 0.3 sliver leaves 0.05 there: 2 x 50 + 50 + 50 = 200, down 700.
  EXPECT_EQ(Fragmentation({9000, 9 * kGi, {1000, 1000, 50, 0}}, mix), 200);
  // Placed on a free GPU instead it breaks a whole one: 0.75 and 0.3 lost to whole GPUs
  // (2 x 1050), 0.3 to halves, nothing to quarters: 2400, up 1500.
  EXPECT_EQ(Fragmentation({9000, 9 * kGi, {750, 1000, 300, 0}}, mix), 2400);
}

TEST(FragmentationTest, ShapesThatMayNotGoOnTheNodeLoseNothingThere) {
  RequestShape v100_only = Gpus(3, 1000);  // does not fit Room(): 2.3 GPUs lost when it may go
  v100_only.reach = 1;
  EXPECT_EQ(LostTo(Room(), v100_only), 2300);
  FragmentRoom t4_node = Room();
  t4_node.unreachable = uint64_t{1} << 1;  // shapes of reach 1 may not go here
  EXPECT_EQ(LostTo(t4_node, v100_only), 0);
  // Shapes that may go anywhere are not affected.
  EXPECT_EQ(LostTo(t4_node, Gpus(3, 1000)), 2300);
  // The memo tells the two rooms apart.
  FragmentationMemo memo;
  const ShapeCounts mix = {{v100_only, 1}};
  EXPECT_EQ(memo.Of(Room(), mix, 1), 2300);
  EXPECT_EQ(memo.Of(t4_node, mix, 1), 0);
}

TEST(FragmentationTest, FreeGpusTheIdleCpuCannotFeedAreLostToEveryShape) {
  // Three one-GPU pods of 12 cores and two half-GPU pods of 4 cores: 44 cores per 4 GPUs, 11
  // cores a GPU.
  const ShapeCounts mix = {{Gpus(1, 1000, 12'000), 3}, {Gpus(1, 500, 4'000), 2}};
  // 8 free GPUs and 40 cores: every shape fits, yet 40 cores feed only 40 / 11 = 3.636 GPUs.
  const FragmentRoom room = {40'000, 100 * kGi, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}};
  EXPECT_EQ(LostTo(room, mix[0].first), 0);
  EXPECT_EQ(LostTo(room, mix[1].first), 0);
  EXPECT_EQ(StrandedByCpu(room, mix), 8000 - 3636);
  // Counted once per shape seen: 5 x 4,364.
  EXPECT_EQ(Fragmentation(room, mix), 5 * 4364);
  // CPU-only shapes do not change the ratio, but count as seen (32 cores fit in 40: they lose
  // nothing themselves).
  ShapeCounts with_cpu_only = mix;
  with_cpu_only.push_back({{32'000, 0, 0, 0}, 10});
  EXPECT_EQ(StrandedByCpu(room, with_cpu_only), 4364);
  EXPECT_EQ(Fragmentation(room, with_cpu_only), 15 * 4364);
  // 88 cores feed all 8 GPUs: nothing stranded.
  FragmentRoom roomy = room;
  roomy.cpu_milli = 88'000;
  EXPECT_EQ(StrandedByCpu(roomy, mix), 0);
  // No GPU shapes: no ratio, nothing stranded.
  EXPECT_EQ(StrandedByCpu(room, {{{32'000, 0, 0, 0}, 1}}), 0);
}

TEST(FragmentationTest, TypicalShapesCoverNinetyFivePercentMostFrequentFirst) {
  ShapeMix mix;
  for (int i = 0; i < 60; ++i) mix.Add(Gpus(1, 1000));
  for (int i = 0; i < 30; ++i) mix.Add(Gpus(1, 500));
  for (int i = 0; i < 6; ++i) mix.Add(Gpus(2, 1000));
  for (int i = 0; i < 4; ++i) mix.Add(Gpus(8, 1000));
  const ShapeCounts& typical = mix.Typical();
  // 60 + 30 = 90% is short of 95%; with the 6 two-GPU pods it is 96%.
  ASSERT_EQ(typical.size(), 3u);
  EXPECT_EQ(typical[0].first, Gpus(1, 1000));
  EXPECT_EQ(typical[0].second, 60);
  EXPECT_EQ(typical[2].first, Gpus(2, 1000));
  const uint64_t version = mix.version();
  // A few more of a new shape (under an eighth more) leave the set as it was.
  for (int i = 0; i < 5; ++i) mix.Add(Gpus(4, 1000));
  EXPECT_EQ(mix.Typical().size(), 3u);
  EXPECT_EQ(mix.version(), version);
}

TEST(FragmentationTest, TheMemoGivesTheMeasureForAlikeRoomsAndForgetsOldShapes) {
  FragmentationMemo memo;
  const ShapeCounts mix = {{Gpus(1, 1000), 2}, {Gpus(1, 500), 1}};
  EXPECT_EQ(memo.Of(Room(), mix, 1), Fragmentation(Room(), mix));
  // The same devices in another order: the same room.
  const FragmentRoom shuffled = {10'000, 10 * kGi, {300, 0, 1000, 1000}};
  EXPECT_EQ(memo.Of(shuffled, mix, 1), 900);
  // New typical shapes: computed again, not read from the memo.
  const ShapeCounts quarters = {{Gpus(1, 250), 5}};
  EXPECT_EQ(memo.Of(Room(), quarters, 2), 0);
  EXPECT_EQ(memo.Of({10'000, 10 * kGi, {1000, 1000, 200, 0}}, quarters, 2), 5 * 200);
}

}  // namespace
}  // namespace quotient::actions
