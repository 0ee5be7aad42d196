// Every expectation below is worked out by hand from the rules in division.h.
#include "fairshare/division.h"

#include <gtest/gtest.h>

#include <deque>

namespace quotient::fairshare {
namespace {

constexpr ShareResource kGpu = ShareResource::kGpu;
constexpr ShareResource kCpu = ShareResource::kCpu;

Quantity Gpus(double n) { return Quantity(static_cast<int64_t>(n * 1000)); }

class DivisionTest : public ::testing::Test {
 protected:
  // Adds a sibling with the given GPU (or `r`) settings; quota/limit nullopt = unlimited.
  QueueShare& Add(std::string name, Quantity request, std::optional<Quantity> quota, int64_t weight,
                  std::optional<Quantity> limit = std::nullopt, int32_t priority = 100,
                  ShareResource r = kGpu) {
    QueueShare q;
    q.name = std::move(name);
    q.priority = priority;
    ResourceShare& s = q.resources[r];
    s.request = request;
    s.deserved = quota ? Bound::Of(*quota) : Bound::Unlimited();
    s.limit = limit ? Bound::Of(*limit) : Bound::Unlimited();
    s.weight_milli = Quantity(weight * 1000);
    queues_.push_back(std::move(q));
    return queues_.back();
  }
  void Divide(Quantity total, ShareResource r = kGpu, int64_t k_milli = 1000) {
    std::vector<QueueShare*> siblings;
    for (QueueShare& q : queues_) siblings.push_back(&q);
    std::sort(siblings.begin(), siblings.end(),
              [](const QueueShare* a, const QueueShare* b) { return a->name < b->name; });
    DivideAmongSiblings(total, r, siblings, k_milli);
  }
  Quantity Fair(const std::string& name, ShareResource r = kGpu) {
    for (const QueueShare& q : queues_) {
      if (q.name == name) return q.resources[r].fair_share;
    }
    ADD_FAILURE() << "no queue " << name;
    return Quantity::Zero();
  }
  std::deque<QueueShare> queues_;  // stable addresses
};

TEST_F(DivisionTest, DeservedPhaseGivesQuotaCappedByRequestThenSurplusByWeight) {
  // 10 GPUs. a: quota 3, wants 5. b: quota 4, wants 2.
  // Deserved: a 3, b 2 (its request); 5 left. Over quota only a is unsatisfied: it is offered 5,
  // needs 2, takes 2. 3 GPUs stay undivided because nobody asks for them.
  Add("a", Gpus(5), Gpus(3), 1);
  Add("b", Gpus(2), Gpus(4), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(5));
  EXPECT_EQ(Fair("b"), Gpus(2));
}

TEST_F(DivisionTest, OvercommittedQuotasAreHonouredBeyondCapacity) {
  // 4 GPUs, two queues each with quota 3 and request 3: both get 3 (6 > 4).
  Add("a", Gpus(3), Gpus(3), 1);
  Add("b", Gpus(3), Gpus(3), 1);
  Divide(Gpus(4));
  EXPECT_EQ(Fair("a"), Gpus(3));
  EXPECT_EQ(Fair("b"), Gpus(3));
}

TEST_F(DivisionTest, EqualWeightsRoundDownAndLeftoverGoesToFirstByName) {
  // 10 GPUs, three queues with no quota, weight 1, each wanting 10: offered 3.33 each, take 3,
  // remember 0.33. No queue took less than offered, so no second round; 1 GPU is left over and
  // goes to the first of the equal remainders: equal creation time and uid, so by name: a.
  Add("a", Gpus(10), Gpus(0), 1);
  Add("b", Gpus(10), Gpus(0), 1);
  Add("c", Gpus(10), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(4));
  EXPECT_EQ(Fair("b"), Gpus(3));
  EXPECT_EQ(Fair("c"), Gpus(3));
}

TEST_F(DivisionTest, LeftoverTieGoesToTheOlderQueue) {
  // 10 GPUs, weights 3 and 1: offered 7.5 and 2.5, take 7 and 2, remainders 0.5 and 0.5.
  // The tie on the leftover GPU goes to the older queue, b.
  Add("a", Gpus(10), Gpus(0), 3).creation_time = core::Time(std::chrono::seconds(2000));
  Add("b", Gpus(10), Gpus(0), 1).creation_time = core::Time(std::chrono::seconds(1000));
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(7));
  EXPECT_EQ(Fair("b"), Gpus(3));
}

TEST_F(DivisionTest, LargestRemainderWinsTheLeftover) {
  // 10 GPUs, weights 2, 1, 1 (sum 4): offered 5, 2.5, 2.5 -> 5, 2, 2 with remainders 0, .5, .5.
  // 1 left: b and c tie at .5; same age, so b by name.
  Add("a", Gpus(10), Gpus(0), 2);
  Add("b", Gpus(10), Gpus(0), 1);
  Add("c", Gpus(10), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(5));
  EXPECT_EQ(Fair("b"), Gpus(3));
  EXPECT_EQ(Fair("c"), Gpus(2));
}

TEST_F(DivisionTest, SatisfiedQueueFreesItsOfferForAnotherRound) {
  // 10 GPUs, weight 1 each. Round 1 offers 3.33: a needs 2 and takes 2 (less than offered, so
  // another round), b and c take 3. Round 2 offers the 2 left to b and c: 1 each.
  Add("a", Gpus(2), Gpus(0), 1);
  Add("b", Gpus(20), Gpus(0), 1);
  Add("c", Gpus(20), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(2));
  EXPECT_EQ(Fair("b"), Gpus(4));
  EXPECT_EQ(Fair("c"), Gpus(4));
}

TEST_F(DivisionTest, HigherPriorityLevelIsServedFirst) {
  // 10 GPUs. Priority 200: a wants 6, d wants 2. Priority 100: b and c want 10 each.
  // Level 200, round 1 offers 5 each: a takes 5, d takes 2 (3 left); round 2 offers the 3 to a,
  // which needs 1. Level 100 gets the 2 left: 1 each.
  Add("a", Gpus(6), Gpus(0), 1, std::nullopt, 200);
  Add("d", Gpus(2), Gpus(0), 1, std::nullopt, 200);
  Add("b", Gpus(10), Gpus(0), 1, std::nullopt, 100);
  Add("c", Gpus(10), Gpus(0), 1, std::nullopt, 100);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(6));
  EXPECT_EQ(Fair("d"), Gpus(2));
  EXPECT_EQ(Fair("b"), Gpus(1));
  EXPECT_EQ(Fair("c"), Gpus(1));
}

TEST_F(DivisionTest, AQueueAloneAtItsLevelGetsNoMoreThanItsRequest) {
  // KAI's divideUpToFairShare has no rule for a lone queue: level 200 offers a all 10, a needs 6
  // and takes 6; with a satisfied no weight is left and the level ends. Level 100 gets the 4 left.
  Add("a", Gpus(6), Gpus(0), 1, std::nullopt, 200);
  Add("b", Gpus(10), Gpus(0), 1, std::nullopt, 100);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(6));
  EXPECT_EQ(Fair("b"), Gpus(4));
}

TEST_F(DivisionTest, ALoneQueueWithZeroWeightKeepsItsQuota) {
  // Weight 0: nothing over quota, however much is left (the sum of weights is 0, so no round).
  Add("a", Gpus(8), Gpus(2), 0);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(2));
}

TEST_F(DivisionTest, ALoneNegativeWeightNormalisesToOne) {
  // KAI normalises each weight by the sum over the unsatisfied siblings: a lone -1 gives
  // -1 / -1 = 1, share weight 1 + k (1 - 0) = 2 > 0, so a is offered all 10 and takes its 6.
  Add("a", Gpus(6), Gpus(0), -1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(6));
}

TEST_F(DivisionTest, NegativeWeightsOfTheSameSignSplitAsTheirMagnitudes) {
  // Weights -1 and -3, sum -4: normalised 0.25 and 0.75, share weights 0.5 and 1.5. 8 GPUs:
  // offered 2 and 6, both want more: a 2, b 6.
  Add("a", Gpus(10), Gpus(0), -1);
  Add("b", Gpus(10), Gpus(0), -3);
  Divide(Gpus(8));
  EXPECT_EQ(Fair("a"), Gpus(2));
  EXPECT_EQ(Fair("b"), Gpus(6));
}

TEST_F(DivisionTest, ANegativeWeightBesideAPositiveOneIsFlooredAtZero) {
  // Weights -1 and 3, sum 2: normalised -0.5 and 1.5; share weights max(0, -0.5 + (-0.5)) = 0
  // and 1.5 + 1.5 = 3. b is offered all 8 and takes its 5; a gets no round of its own: b is
  // satisfied, so the next sum of weights is a's -1 alone, normalised to 1: a is offered the 3
  // left and takes them.
  Add("a", Gpus(10), Gpus(0), -1);
  Add("b", Gpus(5), Gpus(0), 3);
  Divide(Gpus(8));
  EXPECT_EQ(Fair("b"), Gpus(5));
  EXPECT_EQ(Fair("a"), Gpus(3));
}

TEST_F(DivisionTest, NegativeQuotaIsAddedAsItIs) {
  // KAI's setDeservedResource adds min(deserved, requestable) even when it is negative: a gets
  // -2 and the remainder grows to 12. Over quota (weights 1 each, both want more): a's remaining
  // request is 4 - (-2) = 6, b's 10; each is offered 6: a takes its whole 6, b takes 6, nothing
  // is left. a ends at 4, b at 6.
  Add("a", Gpus(4), Gpus(-2), 1);
  Add("b", Gpus(10), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(4));
  EXPECT_EQ(Fair("b"), Gpus(6));
}

TEST_F(DivisionTest, LimitCapsTheShare) {
  // 10 GPUs, weight 1 each, a limited to 2. Round 1 offers 5: a can use only 2 (takes 2,
  // another round), b takes 5. Round 2: a is satisfied (its limit is reached), so b's weight is
  // the whole sum and it is offered the 3 left.
  Add("a", Gpus(10), Gpus(0), 1, Gpus(2));
  Add("b", Gpus(10), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(2));
  EXPECT_EQ(Fair("b"), Gpus(8));
}

TEST_F(DivisionTest, ZeroWeightGetsNothingBeyondQuota) {
  // 10 GPUs. a: quota 1, weight 0, wants 10. b: weight 1, wants 4.
  // Deserved: a 1. Over quota: b takes 4; a has weight 0, so 5 GPUs stay undivided.
  Add("a", Gpus(10), Gpus(1), 0);
  Add("b", Gpus(4), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(1));
  EXPECT_EQ(Fair("b"), Gpus(4));
}

TEST_F(DivisionTest, UnlimitedQuotaGetsItsWholeRequestInTheDeservedPhase) {
  // 10 GPUs. a: unlimited quota, wants 7 -> 7 in the deserved phase. b: quota 0, weight 1.
  Add("a", Gpus(7), std::nullopt, 1);
  Add("b", Gpus(10), Gpus(0), 1);
  Divide(Gpus(10));
  EXPECT_EQ(Fair("a"), Gpus(7));
  EXPECT_EQ(Fair("b"), Gpus(3));
}

TEST_F(DivisionTest, CpuRoundsToWholeMillicores) {
  // 1000 millicores among three equal queues: 333 each, the leftover millicore to a.
  Add("a", Quantity(1000), Quantity(0), 1, std::nullopt, 100, kCpu);
  Add("b", Quantity(1000), Quantity(0), 1, std::nullopt, 100, kCpu);
  Add("c", Quantity(1000), Quantity(0), 1, std::nullopt, 100, kCpu);
  Divide(Quantity(1000), kCpu);
  EXPECT_EQ(Fair("a", kCpu), Quantity(334));
  EXPECT_EQ(Fair("b", kCpu), Quantity(333));
  EXPECT_EQ(Fair("c", kCpu), Quantity(333));
}

TEST_F(DivisionTest, FractionalLeftoverIsGivenAsIs) {
  // 2.5 GPUs, two equal queues: offered 1.25, take 1 each; 0.5 left goes to a (min(1, 0.5)).
  Add("a", Gpus(5), Gpus(0), 1);
  Add("b", Gpus(5), Gpus(0), 1);
  Divide(Gpus(2.5));
  EXPECT_EQ(Fair("a"), Gpus(1.5));
  EXPECT_EQ(Fair("b"), Gpus(1));
}

TEST_F(DivisionTest, UsageShiftsTheOverQuotaSplitWithKValue) {
  // 9 GPUs, weight 1 each (normalised 0.5). Usage a = 0, b = 0.5, k = 1:
  // sw_a = 0.5 + 1 x (0.5 - 0) = 1, sw_b = 0.5 + 1 x (0.5 - 0.5) = 0.5 -> a 6, b 3.
  Add("a", Gpus(9), Gpus(0), 1);
  Add("b", Gpus(9), Gpus(0), 1).resources[kGpu].usage_milli = Quantity(500);
  Divide(Gpus(9));
  EXPECT_EQ(Fair("a"), Gpus(6));
  EXPECT_EQ(Fair("b"), Gpus(3));
}

TEST_F(DivisionTest, KValueZeroIgnoresUsage) {
  Add("a", Gpus(9), Gpus(0), 1);
  Add("b", Gpus(9), Gpus(0), 1).resources[kGpu].usage_milli = Quantity(500);
  Divide(Gpus(9), kGpu, 0);
  // Offered 4.5 each: 4 and 4, remainders .5 each, leftover to a.
  EXPECT_EQ(Fair("a"), Gpus(5));
  EXPECT_EQ(Fair("b"), Gpus(4));
}

TEST_F(DivisionTest, NothingToDivideLeavesSharesAtDeserved) {
  Add("a", Gpus(2), Gpus(2), 1);
  Add("b", Gpus(0), Gpus(2), 1);
  Divide(Gpus(0));
  // Deserved is given even with no capacity (requests are capped, not capacity).
  EXPECT_EQ(Fair("a"), Gpus(2));
  EXPECT_EQ(Fair("b"), Gpus(0));
}

}  // namespace
}  // namespace quotient::fairshare
