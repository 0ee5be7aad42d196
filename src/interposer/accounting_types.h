// What the interposer remembers about one charged allocation.
#pragma once

#include <cstdint>

namespace quotient::interposer {

// Device pointers, CUDA arrays, mipmapped arrays and VMM handles live in separate key spaces.
enum class AllocationKind { kDevicePointer, kArray, kMipmappedArray, kVmmHandle };

struct Allocation {
  std::uint64_t bytes;
  int device;
  std::uint64_t pool = 0;  // stream-ordered allocations: the memory pool they came from
};

}  // namespace quotient::interposer
