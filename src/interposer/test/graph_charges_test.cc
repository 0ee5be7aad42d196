// Who holds a graph allocation's charge (graph_charges.h), in-process.
#include "interposer/graph_charges.h"

#include <gtest/gtest.h>

namespace quotient::interposer {
namespace {

constexpr std::uint64_t kGraph = 0x1000;
constexpr std::uint64_t kOtherGraph = 0x2000;
constexpr std::uint64_t kExecutable = 0x3000;

std::uint64_t total(const std::vector<Allocation>& allocations) {
  std::uint64_t bytes = 0;
  for (const Allocation& allocation : allocations) bytes += allocation.bytes;
  return bytes;
}

std::vector<Allocation> destroy(GraphCharges& charges, GraphHolder holder) {
  return charges.release(charges.take(holder));
}

TEST(GraphCharges, AGraphsChargesAreRefundedWhenItIsDestroyed) {
  GraphCharges charges;
  charges.add(kGraph, {100, 0});
  charges.add(kGraph, {50, 1});
  charges.add(kOtherGraph, {7, 0});
  EXPECT_EQ(charges.charged_bytes(), 157U);
  const auto due = destroy(charges, {GraphHolderKind::kGraph, kGraph});
  ASSERT_EQ(due.size(), 2U);
  EXPECT_EQ(due[0].bytes, 100U);
  EXPECT_EQ(due[1].device, 1);
  EXPECT_EQ(charges.charged_bytes(), 7U);
}

TEST(GraphCharges, AnExecutableKeepsTheChargesAfterItsGraphIsGone) {
  GraphCharges charges;
  charges.add(kGraph, {100, 0});
  charges.share(kGraph, kExecutable);
  EXPECT_TRUE(destroy(charges, {GraphHolderKind::kGraph, kGraph}).empty());
  EXPECT_EQ(total(destroy(charges, {GraphHolderKind::kExecutable, kExecutable})), 100U);
  EXPECT_EQ(charges.charged_bytes(), 0U);
}

TEST(GraphCharges, NodesAddedAfterInstantiationAreTheGraphsAlone) {
  GraphCharges charges;
  charges.add(kGraph, {100, 0});
  charges.share(kGraph, kExecutable);
  charges.add(kGraph, {30, 0});
  EXPECT_TRUE(destroy(charges, {GraphHolderKind::kExecutable, kExecutable}).empty());
  EXPECT_EQ(total(destroy(charges, {GraphHolderKind::kGraph, kGraph})), 130U);
}

TEST(GraphCharges, AFailedDestroyRestoresTheHolding) {
  GraphCharges charges;
  charges.add(kGraph, {100, 0});
  auto held = charges.take({GraphHolderKind::kGraph, kGraph});
  charges.restore({GraphHolderKind::kGraph, kGraph}, std::move(held));
  EXPECT_EQ(charges.charged_bytes(), 100U);
  EXPECT_EQ(total(destroy(charges, {GraphHolderKind::kGraph, kGraph})), 100U);
  // Destroying an unknown handle (or twice) refunds nothing.
  EXPECT_TRUE(destroy(charges, {GraphHolderKind::kGraph, kGraph}).empty());
}

TEST(GraphCharges, AMovedChildsChargesGoWithItsParent) {
  GraphCharges charges;
  charges.add(kOtherGraph, {40, 0});
  charges.move(kOtherGraph, kGraph);
  EXPECT_TRUE(destroy(charges, {GraphHolderKind::kGraph, kOtherGraph}).empty());
  EXPECT_EQ(total(destroy(charges, {GraphHolderKind::kGraph, kGraph})), 40U);
}

TEST(GraphCharges, ClearForgetsEverything) {
  GraphCharges charges;
  charges.add(kGraph, {100, 0});
  charges.share(kGraph, kExecutable);
  charges.clear();
  EXPECT_EQ(charges.charged_bytes(), 0U);
  EXPECT_TRUE(destroy(charges, {GraphHolderKind::kExecutable, kExecutable}).empty());
}

}  // namespace
}  // namespace quotient::interposer
