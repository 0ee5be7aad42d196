// DeterministicRandom: the generator's only source of randomness, giving the same numbers on every
// platform for the same seed.
//
// std::mt19937_64's raw output is fixed by the C++ standard; std::uniform_int_distribution's is
// implementation-defined (libstdc++ and libc++ draw differently), so numbers in a range come from
// the raw output with a plain modulo. Its bias, n / 2^64, is negligible for the small ranges here.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace quotient::generate {

class DeterministicRandom {
 public:
  explicit DeterministicRandom(uint64_t seed) : engine_(seed) {}

  // A number in [0, n); n > 0.
  uint64_t Below(uint64_t n) { return engine_() % n; }
  int Below(int n) { return static_cast<int>(Below(static_cast<uint64_t>(n))); }

  // Fisher-Yates, drawing with Below (std::shuffle's draws are implementation-defined too).
  template <typename T>
  void Shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i > 1; --i) {
      std::swap(items[i - 1], items[Below(static_cast<uint64_t>(i))]);
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace quotient::generate
