#include "fairshare/division.h"

#include <algorithm>
#include <map>
#include <optional>

#include "common/int128.h"

namespace quotient::fairshare {
namespace {

using quotient::Int128;

// An exact non-negative rational, for remembered remainders.
struct Fraction {
  Int128 numerator = 0;
  Int128 denominator = 1;
  bool operator>(const Fraction& o) const {
    return numerator * o.denominator > o.numerator * denominator;
  }
  bool operator==(const Fraction& o) const {
    return numerator * o.denominator == o.numerator * denominator;
  }
};

Quantity RemainingRequest(const ResourceShare& s) {
  const Quantity requestable = s.Requestable();
  return requestable > s.fair_share ? requestable - s.fair_share : Quantity::Zero();
}

// KAI's isQueueSatisfied.
bool IsSatisfied(const ResourceShare& s) {
  if (s.request <= s.fair_share) return true;
  return !s.limit.is_unlimited() && s.limit.amount() <= s.fair_share;
}

Quantity DeservedPhase(Quantity total, ShareResource r, const std::vector<QueueShare*>& siblings) {
  Quantity remaining = total;
  for (QueueShare* q : siblings) {
    ResourceShare& s = q->resources[r];
    const Quantity deserved = s.deserved.amount_or(total);
    const Quantity give = core::Min(deserved, s.Requestable());
    s.fair_share += give;
    remaining -= give;
  }
  return remaining;
}

// KAI's calcShareWeights, scaled by |S| x 10^6 where S is the sum of the weights of the queues
// with remaining request (negative weights included, as KAI sums them):
//   sw_i = max(0, n_i + k (n_i - u_i)),  n_i = W_i / S
//   sw_i x |S| x 10^6 = sign(S) W_i (1000 + k) 1000 - k u_i |S|      (W, S, k, u in milli)
// Scaling every weight by the same positive factor keeps their ratios. Returns an empty map when
// S is zero (KAI: stop dividing).
std::map<QueueShare*, Int128> ShareWeights(ShareResource r, const std::vector<QueueShare*>& level,
                                           int64_t k_milli) {
  Int128 weight_sum = 0;
  for (QueueShare* q : level) {
    if (RemainingRequest(q->resources[r]) > Quantity::Zero()) {
      weight_sum += q->resources[r].weight_milli.value();
    }
  }
  std::map<QueueShare*, Int128> weights;
  if (weight_sum == 0) return weights;
  const Int128 sign = weight_sum > 0 ? 1 : -1;
  const Int128 magnitude = weight_sum * sign;
  for (QueueShare* q : level) {
    const ResourceShare& s = q->resources[r];
    if (IsSatisfied(s)) continue;
    const Int128 w = s.weight_milli.value();
    const Int128 scaled =
        sign * w * (1000 + k_milli) * 1000 - k_milli * s.usage_milli.value() * magnitude;
    weights[q] = scaled > 0 ? scaled : 0;
  }
  return weights;
}

struct LevelResult {
  Quantity remaining;
  std::map<QueueShare*, Fraction> remainders;  // fractional parts not given, in base units
};

// KAI's divideUpToFairShare for one priority level.
LevelResult DivideLevel(Quantity amount, ShareResource r, const std::vector<QueueShare*>& level,
                        int64_t k_milli) {
  LevelResult out{amount, {}};
  const Int128 unit = core::WholeUnit(r).value();
  while (true) {
    const std::map<QueueShare*, Int128> weights = ShareWeights(r, level, k_milli);
    Int128 weight_total = 0;
    for (const auto& [q, w] : weights) weight_total += w;
    if (weight_total == 0) break;
    const Int128 round_amount = out.remaining.value();
    bool another_round = false;
    for (QueueShare* q : level) {
      if (out.remaining.is_zero()) break;
      ResourceShare& s = q->resources[r];
      if (IsSatisfied(s) || s.weight_milli.is_zero()) continue;
      const Int128 requested = RemainingRequest(s).value();
      // offered = round_amount x w / weight_total, kept exact as a fraction.
      const Int128 offered_num = round_amount * weights.at(q);
      Int128 give = 0;
      if (requested * weight_total <= offered_num) {
        give = requested;
        out.remainders.erase(q);
      } else {
        give = offered_num / (weight_total * unit) * unit;  // floor to whole units
        const Int128 rest_num = offered_num - give * weight_total;
        if (rest_num > 0) out.remainders[q] = Fraction{rest_num, weight_total};
      }
      if (give == 0) continue;
      s.fair_share += Quantity(static_cast<int64_t>(give));
      out.remaining -= Quantity(static_cast<int64_t>(give));
      another_round = another_round || requested * weight_total < offered_num;
    }
    if (!another_round || out.remaining.is_zero()) break;
  }
  return out;
}

// KAI's divideRemainingResource: one whole unit per remembered remainder, largest first.
Quantity GiveLeftovers(Quantity amount, ShareResource r,
                       const std::map<QueueShare*, Fraction>& remainders) {
  std::vector<std::pair<QueueShare*, Fraction>> order(remainders.begin(), remainders.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second > b.second) return true;
    if (!(a.second == b.second)) return false;
    if (a.first->creation_time != b.first->creation_time) {
      return a.first->creation_time < b.first->creation_time;
    }
    if (a.first->uid != b.first->uid) return a.first->uid < b.first->uid;
    return a.first->name < b.first->name;
  });
  for (const auto& entry : order) {
    if (amount <= Quantity::Zero()) break;
    const Quantity give = core::Min(core::WholeUnit(r), amount);
    entry.first->resources[r].fair_share += give;
    amount -= give;
  }
  return amount;
}

}  // namespace

void DivideAmongSiblings(Quantity total, ShareResource r, const std::vector<QueueShare*>& siblings,
                         int64_t k_value_milli) {
  if (siblings.empty()) return;
  Quantity remaining = DeservedPhase(total, r, siblings);
  if (remaining <= Quantity::Zero()) return;
  const int64_t k_milli = std::max<int64_t>(0, k_value_milli);

  // Priority levels, highest first; each level keeps the name order of `siblings`.
  std::map<int32_t, std::vector<QueueShare*>, std::greater<>> levels;
  for (QueueShare* q : siblings) levels[q->priority].push_back(q);

  std::vector<std::map<QueueShare*, Fraction>> remainders;
  for (const auto& [priority, level] : levels) {
    LevelResult result = DivideLevel(remaining, r, level, k_milli);
    remaining = result.remaining;
    remainders.push_back(std::move(result.remainders));
  }
  for (const auto& level_remainders : remainders) {
    if (remaining <= Quantity::Zero()) break;
    remaining = GiveLeftovers(remaining, r, level_remainders);
  }
}

}  // namespace quotient::fairshare
