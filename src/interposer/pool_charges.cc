#include "interposer/pool_charges.h"

#include <algorithm>

namespace quotient::interposer {
namespace {

std::uint64_t room(std::uint64_t threshold, std::uint64_t in_use) {
  return threshold > in_use ? threshold - in_use : 0;
}

}  // namespace

std::uint64_t PoolCharges::take_cover(std::uint64_t pool, int device, std::uint64_t bytes) {
  Pool& state = pools_[pool];
  state.device = device;
  const std::uint64_t covered = std::min(bytes, state.retained);
  state.retained -= covered;
  return covered;
}

void PoolCharges::return_cover(std::uint64_t pool, std::uint64_t covered) {
  pools_[pool].retained += covered;
}

void PoolCharges::allocated(std::uint64_t pool, std::uint64_t bytes) {
  pools_[pool].in_use += bytes;
}

std::uint64_t PoolCharges::freed(std::uint64_t pool, std::uint64_t bytes) {
  const auto found = pools_.find(pool);
  if (found == pools_.end()) return 0;
  Pool& state = found->second;
  state.in_use -= std::min(bytes, state.in_use);
  const std::uint64_t free_room = room(state.threshold, state.in_use);
  const std::uint64_t kept =
      std::min(bytes, free_room > state.retained ? free_room - state.retained : 0);
  state.retained += kept;
  return kept;
}

std::optional<Allocation> PoolCharges::shrink(Pool& pool, std::uint64_t limit) {
  if (pool.retained <= limit) return std::nullopt;
  const Allocation released{pool.retained - limit, pool.device};
  pool.retained = limit;
  return released;
}

std::optional<Allocation> PoolCharges::set_threshold(std::uint64_t pool, std::uint64_t threshold) {
  Pool& state = pools_[pool];  // its device is known once it allocates, before it retains
  state.threshold = threshold;
  return shrink(state, room(threshold, state.in_use));
}

std::optional<Allocation> PoolCharges::trim(std::uint64_t pool, std::uint64_t keep) {
  const auto found = pools_.find(pool);
  if (found == pools_.end()) return std::nullopt;
  return shrink(found->second, room(keep, found->second.in_use));
}

std::optional<Allocation> PoolCharges::destroy(std::uint64_t pool) {
  const auto found = pools_.find(pool);
  if (found == pools_.end()) return std::nullopt;
  auto released = shrink(found->second, 0);
  pools_.erase(found);
  return released;
}

std::uint64_t PoolCharges::retained_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [handle, state] : pools_) total += state.retained;
  return total;
}

}  // namespace quotient::interposer
