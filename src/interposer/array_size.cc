#include "interposer/array_size.h"

#include <algorithm>

namespace quotient::interposer {
namespace {

// Size of one element in bits, all channels and planes included; 0 for block-compressed formats.
// Values from cuda.h's CUarray_format. Formats this table does not know are charged 32 bits per
// channel, more than any 8- or 16-bit format needs.
std::uint64_t element_bits(CUarray_format format, unsigned int channels) {
  const std::uint64_t per_channel = channels == 0 ? 1 : channels;
  switch (format) {
    case 0x01:  // UNSIGNED_INT8
    case 0x08:  // SIGNED_INT8
      return 8 * per_channel;
    case 0x02:  // UNSIGNED_INT16
    case 0x09:  // SIGNED_INT16
    case 0x10:  // HALF
      return 16 * per_channel;
    case 0x03:  // UNSIGNED_INT32
    case 0x0a:  // SIGNED_INT32
    case 0x20:  // FLOAT
      return 32 * per_channel;
    // UNORM/SNORM_INT8X1/X2/X4 and INT16X1/X2/X4: the channel count is part of the format.
    case 0xc0:
    case 0xc6:
      return 8;
    case 0xc1:
    case 0xc7:
    case 0xc3:
    case 0xc9:
      return 16;
    case 0xc2:
    case 0xc8:
    case 0xc4:
    case 0xca:
    case 0x50:  // UNORM_INT_101010_2
      return 32;
    case 0xc5:
    case 0xcb:
      return 64;
    // Video formats, per pixel with all planes: 4:2:0 carries 1.5 samples per pixel, 4:2:2 two,
    // 4:4:4 three; 10- and 16-bit samples are stored in 16 bits.
    case 0xb0:  // NV12
    case 0x53:  // UINT8_SEMIPLANAR_420
    case 0x59:  // UINT8_PLANAR_420
      return 12;
    case 0xa2:  // NV16
    case 0xa5:  // YUY2
    case 0x51:  // UINT8_PACKED_422
    case 0x55:  // UINT8_SEMIPLANAR_422
    case 0x5b:  // UINT8_PLANAR_422
      return 16;
    case 0x9f:  // P010
    case 0xa1:  // P016
    case 0x54:  // UINT16_SEMIPLANAR_420
    case 0x5a:  // UINT16_PLANAR_420
    case 0xb2:  // Y444_PLANAR8
    case 0xb4:  // YUV444_8bit_SemiPlanar
    case 0x57:  // UINT8_SEMIPLANAR_444
    case 0x5d:  // UINT8_PLANAR_444
      return 24;
    case 0xa3:  // P210
    case 0xa4:  // P216
    case 0xa6:  // Y210
    case 0xa7:  // Y216
    case 0xa8:  // AYUV
    case 0xa9:  // Y410
    case 0x52:  // UINT8_PACKED_444 (4 bytes with padding or alpha: the larger reading)
    case 0x56:  // UINT16_SEMIPLANAR_422
    case 0x5c:  // UINT16_PLANAR_422
      return 32;
    case 0xb3:  // Y444_PLANAR10
    case 0xb5:  // YUV444_16bit_SemiPlanar
    case 0x58:  // UINT16_SEMIPLANAR_444
    case 0x5e:  // UINT16_PLANAR_444
      return 48;
    case 0xb1:  // Y416
      return 64;
    default:
      if (format >= 0x91 && format <= 0x9e) return 0;  // BC1..BC7
      return 32 * per_channel;
  }
}

// Bytes of one 4×4 block: BC1 and BC4 pack 16 texels in 8 bytes, the other BC formats in 16.
std::uint64_t block_bytes(CUarray_format format) {
  switch (format) {
    case 0x91:  // BC1_UNORM
    case 0x92:  // BC1_UNORM_SRGB
    case 0x97:  // BC4_UNORM
    case 0x98:  // BC4_SNORM
      return 8;
    default:
      return 16;
  }
}

std::uint64_t at_least_one(std::uint64_t extent) { return std::max<std::uint64_t>(extent, 1); }

std::uint64_t level_bytes(const ArrayShape& shape) {
  const std::uint64_t width = at_least_one(shape.width);
  const std::uint64_t height = at_least_one(shape.height);
  const std::uint64_t depth = at_least_one(shape.depth);
  const std::uint64_t bits = element_bits(shape.format, shape.channels);
  if (bits == 0) return (width + 3) / 4 * ((height + 3) / 4) * depth * block_bytes(shape.format);
  return (width * height * depth * bits + 7) / 8;
}

}  // namespace

std::uint64_t array_bytes(const ArrayShape& shape) {
  if ((shape.flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING)) != 0) return 0;
  return level_bytes(shape);
}

std::uint64_t mipmapped_array_bytes(const ArrayShape& shape, unsigned int levels) {
  if ((shape.flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING)) != 0) return 0;
  const bool depth_is_layers = (shape.flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
  auto halve = [](std::uint64_t extent) { return extent == 0 ? 0 : at_least_one(extent / 2); };
  std::uint64_t total = 0;
  ArrayShape level = shape;
  for (unsigned int index = 0; index < std::max(levels, 1U); ++index) {
    total += level_bytes(level);
    level.width = halve(level.width);
    level.height = halve(level.height);
    if (!depth_is_layers) level.depth = halve(level.depth);
  }
  return total;
}

}  // namespace quotient::interposer
