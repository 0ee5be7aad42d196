// The charges of CUDA graph memory: what each allocation node added to a graph was charged, and
// who still holds it.
//
// A graph's allocation node reserves nothing when it is added; the driver maps its memory when
// an executable instantiated from the graph is launched or uploaded, and keeps it in the
// device's graph memory pool between launches. Its memory can therefore exist as long as the
// graph (which can be instantiated again) or any executable instantiated from it (which can be
// launched again, also after its graph is destroyed) exists. So the node's size is charged when
// the node is added, the only moment a refusal can name the node (CUDA_ERROR_OUT_OF_MEMORY from
// cuGraphAddMemAllocNode), and it is held by the graph and by every executable instantiated from
// it; it is refunded when the last of them is destroyed. A free node in the graph refunds
// nothing: the pool keeps the memory, and the next launch allocates it again.
//
// Not thread-safe: Accounting guards it with its own mutex.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interposer/accounting_types.h"

namespace quotient::interposer {

enum class GraphHolderKind { kGraph, kExecutable };
using GraphHolder = std::pair<GraphHolderKind, std::uint64_t>;  // kind, driver handle

class GraphCharges {
 public:
  using Holding = std::vector<std::uint64_t>;  // charge ids

  // A charged allocation node of `graph`.
  void add(std::uint64_t graph, Allocation allocation);
  // `executable` was instantiated from `graph`: it holds every charge the graph holds.
  void share(std::uint64_t graph, std::uint64_t executable);
  // `from` became part of `to` (a child graph whose ownership moved to its parent, which then
  // destroys it): `to` holds what `from` held.
  void move(std::uint64_t from, std::uint64_t to);

  // Destruction is two steps, so that a failed destroy keeps the charges and a handle the driver
  // reuses for a new graph is never confused with the old one: take the holder's charges before
  // the driver call, then release them (success) or restore them (failure).
  Holding take(GraphHolder holder);
  void restore(GraphHolder holder, Holding holding);
  // Drops one hold on each charge; returns the allocations no one holds any more (to refund).
  [[nodiscard]] std::vector<Allocation> release(const Holding& holding);

  // After fork(): the child holds none of the parent's graphs.
  void clear();
  // Bytes charged to graph memory and not yet refunded.
  [[nodiscard]] std::uint64_t charged_bytes() const;

 private:
  struct Charge {
    Allocation allocation;
    int holders;
  };

  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, Charge> charges_;
  std::map<GraphHolder, Holding> holders_;
};

}  // namespace quotient::interposer
