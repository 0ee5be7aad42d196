#include "actions/fragmentation.h"

#include <algorithm>

#include "common/int128.h"

namespace quotient::actions {

int64_t LostTo(const FragmentRoom& room, const RequestShape& shape) {
  int64_t free = 0;
  int64_t roomy_devices = 0;
  int64_t lost_on_full_devices = 0;  // room on devices too full for the shape's share
  for (const int64_t g : room.gpu_free_milli) {
    free += g;
    if (shape.gpus > 0 && g >= shape.gpu_milli_each) {
      ++roomy_devices;
    } else {
      lost_on_full_devices += g;
    }
  }
  if (shape.reach > 0 && shape.reach <= kMaxReaches && ((room.unreachable >> shape.reach) & 1U)) {
    return 0;
  }
  const bool fits = shape.cpu_milli <= room.cpu_milli && shape.memory_bytes <= room.memory_bytes &&
                    roomy_devices >= shape.gpus;
  if (!fits) return free;
  return shape.gpus == 0 ? 0 : lost_on_full_devices;
}

int64_t StrandedByCpu(const FragmentRoom& room, const ShapeCounts& typical) {
  Int128 cpu = 0;  // what the GPU shapes ask for, weighted by how often each is seen
  Int128 gpu = 0;
  for (const auto& [shape, count] : typical) {
    if (shape.gpus == 0) continue;
    cpu += Int128{count} * shape.cpu_milli;
    gpu += Int128{count} * shape.gpus * shape.gpu_milli_each;
  }
  if (cpu == 0) return 0;
  int64_t free = 0;
  for (const int64_t g : room.gpu_free_milli) free += g;
  const Int128 fed = Int128{std::max<int64_t>(0, room.cpu_milli)} * gpu / cpu;
  return fed >= free ? 0 : free - static_cast<int64_t>(fed);
}

int64_t Fragmentation(const FragmentRoom& room, const ShapeCounts& typical) {
  int64_t total = 0;
  int64_t seen = 0;
  for (const auto& [shape, count] : typical) {
    total += count * LostTo(room, shape);
    seen += count;
  }
  return total + seen * StrandedByCpu(room, typical);
}

size_t FragmentationMemo::KeyHash::operator()(const std::vector<int64_t>& key) const {
  uint64_t h = 0x9E3779B97F4A7C15U;
  for (const int64_t v : key) {
    h ^= static_cast<uint64_t>(v) + 0x9E3779B97F4A7C15U + (h << 6) + (h >> 2);
  }
  return static_cast<size_t>(h);
}

int64_t FragmentationMemo::Of(const FragmentRoom& room, const ShapeCounts& typical,
                              uint64_t typical_version) {
  if (!valid_ || version_ != typical_version) {
    known_.clear();
    version_ = typical_version;
    valid_ = true;
  }
  // Memory is not part of the key: only shapes that ask for none reach the memo (the placer
  // leaves memory out of typical shapes).
  key_.assign({static_cast<int64_t>(room.unreachable), room.cpu_milli});
  key_.insert(key_.end(), room.gpu_free_milli.begin(), room.gpu_free_milli.end());
  std::sort(key_.begin() + 2, key_.end());
  const auto found = known_.find(key_);
  if (found != known_.end()) return found->second;
  const int64_t fragmentation = Fragmentation(room, typical);
  known_.emplace(key_, fragmentation);
  return fragmentation;
}

void ShapeMix::Add(const RequestShape& shape) {
  ++counts_[shape];
  ++seen_;
}

const ShapeCounts& ShapeMix::Typical() {
  if (seen_ == seen_at_last_ || (seen_at_last_ > 0 && seen_ - seen_at_last_ < seen_at_last_ / 8)) {
    return typical_;
  }
  seen_at_last_ = seen_;
  ShapeCounts all(counts_.begin(), counts_.end());
  // Most frequent first; equals by shape, so the set does not depend on insertion order.
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  ShapeCounts typical;
  int64_t covered = 0;
  for (const auto& entry : all) {
    if (typical.size() >= kMaxTypicalShapes || covered * 100 >= seen_ * 95) break;
    typical.push_back(entry);
    covered += entry.second;
  }
  if (typical != typical_) {
    typical_ = std::move(typical);
    ++version_;
  }
  return typical_;
}

}  // namespace quotient::actions
