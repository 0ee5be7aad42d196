// A small deterministic random source for the case generator: SplitMix64, the same numbers on
// every platform and standard library (std::uniform_int_distribution is not specified bit for
// bit, so the generator never uses <random>'s distributions). A case's stream is seeded from the
// corpus seed and the case number, so case 1234 of seed 7 is the same whatever else is generated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quotient::kaidiff {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  Rng(uint64_t seed, uint64_t stream) : state_(Mix(seed ^ Mix(stream + 0x632be59bd9b4e019ULL))) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return Mix(state_);
  }
  // Uniform in [0, n); n > 0.
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }
  // Uniform in [lo, hi].
  int Between(int lo, int hi) { return lo + Below(hi - lo + 1); }
  // True with probability percent / 100.
  bool Chance(int percent) { return Below(100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(Below(static_cast<int>(items.size())))];
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

}  // namespace quotient::kaidiff
