// The device memory a CUDA array holds, from its descriptor: width × height × depth elements of
// the format's size (block-compressed formats by 4×4 block), summed over the levels of a
// mipmapped array. The driver's padding and tiling are not visible through the API (its exact
// size query, cuArrayGetMemoryRequirements, only answers for deferred-mapping arrays), so this
// is the unpadded size, as for every other allocation.
#pragma once

#include <cstdint>

#include "interposer/cuda_abi.h"

namespace quotient::interposer {

struct ArrayShape {
  std::uint64_t width;
  std::uint64_t height;  // 0: a 1D array
  std::uint64_t depth;   // 0: 1D or 2D; layers when layered, 6 × cubemaps for cubemaps
  CUarray_format format;
  unsigned int channels;
  unsigned int flags;  // CUDA_ARRAY3D_*
};

// Bytes the array holds of its own. 0 for sparse and deferred-mapping arrays: their memory is
// physical memory from cuMemCreate mapped into them later, charged there.
[[nodiscard]] std::uint64_t array_bytes(const ArrayShape& shape);

// The sum over `levels` mipmap levels, each half the previous in width, height and (unless the
// array is layered or a cubemap) depth, never below 1.
[[nodiscard]] std::uint64_t mipmapped_array_bytes(const ArrayShape& shape, unsigned int levels);

}  // namespace quotient::interposer
