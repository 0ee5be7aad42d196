#include "interposer/config.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace quotient::interposer {
namespace {

TEST(ParseByteSize, AcceptsBytesAndBinarySuffixes) {
  EXPECT_EQ(parse_byte_size("1073741824"), 1073741824U);
  EXPECT_EQ(parse_byte_size("512k"), 512U << 10);
  EXPECT_EQ(parse_byte_size("1024m"), 1ULL << 30);
  EXPECT_EQ(parse_byte_size("2G"), 2ULL << 30);
}

TEST(ParseByteSize, RejectsAnythingElse) {
  EXPECT_FALSE(parse_byte_size(""));
  EXPECT_FALSE(parse_byte_size("m"));
  EXPECT_FALSE(parse_byte_size("1.5g"));
  EXPECT_FALSE(parse_byte_size("-1"));
  EXPECT_FALSE(parse_byte_size("99999999999999999999"));
  EXPECT_FALSE(parse_byte_size("17179869184g"));  // overflows 64 bits
}

TEST(ConfigFromEnvironment, PerDeviceLimitsOverrideTheDefault) {
  setenv("QUOTIENT_GPU_MEMORY_LIMIT", "1g", 1);
  setenv("QUOTIENT_GPU_MEMORY_LIMIT_1", "2g", 1);
  setenv("QUOTIENT_GPU_LEDGER", "pod-a", 1);
  const Config config = config_from_environment();
  unsetenv("QUOTIENT_GPU_MEMORY_LIMIT");
  unsetenv("QUOTIENT_GPU_MEMORY_LIMIT_1");
  unsetenv("QUOTIENT_GPU_LEDGER");
  EXPECT_EQ(config.limit_for(0), 1ULL << 30);
  EXPECT_EQ(config.limit_for(1), 2ULL << 30);
  EXPECT_EQ(config.ledger_name(1), "/pod-a-dev1");
}

TEST(ConfigFromEnvironment, HamiNamesAreAFallback) {
  setenv("CUDA_DEVICE_MEMORY_LIMIT", "3000m", 1);
  const Config config = config_from_environment();
  unsetenv("CUDA_DEVICE_MEMORY_LIMIT");
  EXPECT_EQ(config.limit_for(0), 3000ULL << 20);
}

}  // namespace
}  // namespace quotient::interposer
