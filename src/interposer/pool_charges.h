// Memory a stream-ordered memory pool keeps after its allocations are freed.
//
// cuMemFreeAsync returns memory to its pool, not to the device. Across synchronisations the pool
// keeps reserved up to its release threshold (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; 0 by default,
// RAPIDS and PyTorch's cudaMallocAsync backend raise it), and only cuMemPoolTrimTo, a lower
// threshold or destroying the pool give that memory back. So a free refunds only what does not
// fit under the threshold beside the pool's allocations in use; the rest stays charged as the
// pool's retained memory, and the pool's next allocations use it first: they are charged only
// for what it does not cover. A pool with threshold 0 retains nothing and refunds every free in
// full. (Between a free and the next synchronisation even such a pool still holds the memory;
// that short window is not counted.)
//
// Not thread-safe: Accounting guards it with its own mutex.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "interposer/accounting_types.h"

namespace quotient::interposer {

class PoolCharges {
 public:
  // Before an allocation of `bytes` from `pool` on `device`: the retained bytes that cover it,
  // taken out of the retained memory (the caller charges only the rest).
  std::uint64_t take_cover(std::uint64_t pool, int device, std::uint64_t bytes);
  // The allocation failed: the cover goes back to the retained memory.
  void return_cover(std::uint64_t pool, std::uint64_t covered);
  // The allocation succeeded: `bytes` are in use from the pool.
  void allocated(std::uint64_t pool, std::uint64_t bytes);
  // `bytes` of the pool were freed: how many of them the pool retains (not to be refunded).
  std::uint64_t freed(std::uint64_t pool, std::uint64_t bytes);

  // Each returns the retained memory the pool no longer keeps (to refund), if any.
  std::optional<Allocation> set_threshold(std::uint64_t pool, std::uint64_t threshold);
  // cuMemPoolTrimTo: the pool keeps fewer than `keep` reserved bytes, in use ones included.
  std::optional<Allocation> trim(std::uint64_t pool, std::uint64_t keep);
  std::optional<Allocation> destroy(std::uint64_t pool);

  // After fork(): the child has none of the parent's pools.
  void clear() { pools_.clear(); }
  [[nodiscard]] std::uint64_t retained_bytes() const;

 private:
  struct Pool {
    int device = 0;
    std::uint64_t threshold = 0;
    std::uint64_t in_use = 0;
    std::uint64_t retained = 0;
  };

  // Retained memory beyond `limit`, removed and returned.
  std::optional<Allocation> shrink(Pool& pool, std::uint64_t limit);

  std::unordered_map<std::uint64_t, Pool> pools_;
};

}  // namespace quotient::interposer
