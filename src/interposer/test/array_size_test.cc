// Array sizes from descriptors (array_size.h): expected values computed by hand from the formats'
// definitions.
#include "interposer/array_size.h"

#include <gtest/gtest.h>

namespace quotient::interposer {
namespace {

constexpr CUarray_format kUnsignedInt8 = 0x01;
constexpr CUarray_format kHalf = 0x10;
constexpr CUarray_format kFloat = 0x20;
constexpr CUarray_format kUnormInt16X4 = 0xc5;
constexpr CUarray_format kNv12 = 0xb0;
constexpr CUarray_format kBc1 = 0x91;
constexpr CUarray_format kBc7 = 0x9d;

TEST(ArraySize, ChannelFormatsCountEveryChannel) {
  EXPECT_EQ(array_bytes({2048, 0, 0, kFloat, 1, 0}), 8192U);         // 1D
  EXPECT_EQ(array_bytes({64, 64, 0, kHalf, 4, 0}), 64U * 64 * 8);    // 2D, 4 × 16 bits
  EXPECT_EQ(array_bytes({10, 10, 10, kUnsignedInt8, 2, 0}), 2000U);  // 3D
  EXPECT_EQ(array_bytes({16, 16, 0, kUnormInt16X4, 4, 0}), 16U * 16 * 8);
}

TEST(ArraySize, LayersAndCubemapFacesAreDepth) {
  EXPECT_EQ(array_bytes({32, 32, 12, kFloat, 1, CUDA_ARRAY3D_LAYERED}), 32U * 32 * 12 * 4);
  EXPECT_EQ(array_bytes({32, 32, 6, kFloat, 1, CUDA_ARRAY3D_CUBEMAP}), 32U * 32 * 6 * 4);
}

TEST(ArraySize, VideoAndBlockCompressedFormats) {
  EXPECT_EQ(array_bytes({1920, 1080, 0, kNv12, 1, 0}), 1920U * 1080 * 3 / 2);
  // 10 × 10 texels are 3 × 3 blocks of 4 × 4; BC1 8 bytes a block, BC7 16.
  EXPECT_EQ(array_bytes({10, 10, 0, kBc1, 4, 0}), 9U * 8);
  EXPECT_EQ(array_bytes({10, 10, 0, kBc7, 4, 0}), 9U * 16);
}

TEST(ArraySize, UnknownFormatsAreChargedFourBytesAChannel) {
  EXPECT_EQ(array_bytes({100, 1, 0, 0x7777, 2, 0}), 800U);
}

TEST(ArraySize, SparseAndDeferredArraysHoldNothingOfTheirOwn) {
  EXPECT_EQ(array_bytes({1024, 1024, 0, kFloat, 1, CUDA_ARRAY3D_SPARSE}), 0U);
  EXPECT_EQ(array_bytes({1024, 1024, 0, kFloat, 1, CUDA_ARRAY3D_DEFERRED_MAPPING}), 0U);
  EXPECT_EQ(mipmapped_array_bytes({1024, 1024, 0, kFloat, 1, CUDA_ARRAY3D_DEFERRED_MAPPING}, 4),
            0U);
}

TEST(ArraySize, MipmapLevelsHalveUntilOne) {
  // 8 × 4 FLOAT, 5 levels: 8×4, 4×2, 2×1, 1×1, 1×1 texels.
  EXPECT_EQ(mipmapped_array_bytes({8, 4, 0, kFloat, 1, 0}, 5), (32U + 8 + 2 + 1 + 1) * 4);
  // 3D: depth halves too; layered: layers stay.
  EXPECT_EQ(mipmapped_array_bytes({4, 4, 4, kUnsignedInt8, 1, 0}, 3), 64U + 8 + 1);
  EXPECT_EQ(mipmapped_array_bytes({4, 4, 3, kUnsignedInt8, 1, CUDA_ARRAY3D_LAYERED}, 3),
            (16U + 4 + 1) * 3);
  EXPECT_EQ(mipmapped_array_bytes({8, 8, 0, kFloat, 1, 0}, 0), 256U);  // 0 levels: the base
}

}  // namespace
}  // namespace quotient::interposer
