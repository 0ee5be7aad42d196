#include "interposer/graph_charges.h"

namespace quotient::interposer {

void GraphCharges::add(std::uint64_t graph, Allocation allocation) {
  const std::uint64_t id = next_id_++;
  charges_.emplace(id, Charge{allocation, 1});
  holders_[{GraphHolderKind::kGraph, graph}].push_back(id);
}

void GraphCharges::share(std::uint64_t graph, std::uint64_t executable) {
  const auto found = holders_.find({GraphHolderKind::kGraph, graph});
  if (found == holders_.end()) return;
  const Holding& shared = found->second;  // std::map: stays valid while another key is added
  for (const std::uint64_t id : shared) ++charges_.at(id).holders;
  Holding& held = holders_[{GraphHolderKind::kExecutable, executable}];
  held.insert(held.end(), shared.begin(), shared.end());
}

void GraphCharges::move(std::uint64_t from, std::uint64_t to) {
  if (from == to) return;
  auto found = holders_.find({GraphHolderKind::kGraph, from});
  if (found == holders_.end()) return;
  Holding moved = std::move(found->second);
  holders_.erase(found);
  Holding& held = holders_[{GraphHolderKind::kGraph, to}];
  held.insert(held.end(), moved.begin(), moved.end());
}

GraphCharges::Holding GraphCharges::take(GraphHolder holder) {
  auto found = holders_.find(holder);
  if (found == holders_.end()) return {};
  Holding taken = std::move(found->second);
  holders_.erase(found);
  return taken;
}

void GraphCharges::restore(GraphHolder holder, Holding holding) {
  if (holding.empty()) return;
  Holding& held = holders_[holder];
  held.insert(held.end(), holding.begin(), holding.end());
}

std::vector<Allocation> GraphCharges::release(const Holding& holding) {
  std::vector<Allocation> due;
  for (const std::uint64_t id : holding) {
    auto found = charges_.find(id);
    if (found == charges_.end()) continue;
    if (--found->second.holders == 0) {
      due.push_back(found->second.allocation);
      charges_.erase(found);
    }
  }
  return due;
}

void GraphCharges::clear() {
  charges_.clear();
  holders_.clear();
}

std::uint64_t GraphCharges::charged_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [id, charge] : charges_) total += charge.allocation.bytes;
  return total;
}

}  // namespace quotient::interposer
