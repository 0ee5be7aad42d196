// PCI addresses from NVML and from kernel lines must name the same GPU.
#include "nodehealth/bdf.h"

#include <gtest/gtest.h>

namespace quotient::nodehealth {
namespace {

TEST(NodeHealthBdfTest, NvmlKernelAndDriverFormsOfOneGpuAgree) {
  EXPECT_EQ(NormalizeBdf("00000000:3B:00.0"), "0000:3b:00");  // nvmlPciInfo_t.busId
  EXPECT_EQ(NormalizeBdf("PCI:0000:3b:00"), "0000:3b:00");    // NVRM: Xid (PCI:...)
  EXPECT_EQ(NormalizeBdf("0000:3b:00.0"), "0000:3b:00");      // mlx5_core, fallen off the bus
  EXPECT_EQ(NormalizeBdf("3b:00.0"), "0000:3b:00");           // lspci without a domain
  EXPECT_EQ(NormalizeBdf("0018:01:00"), "0018:01:00");        // a non-zero domain stays
}

TEST(NodeHealthBdfTest, TextThatIsNotAnAddressIsRefused) {
  EXPECT_FALSE(NormalizeBdf(""));
  EXPECT_FALSE(NormalizeBdf("10de:26b5x"));
  EXPECT_FALSE(NormalizeBdf("GPU-1234"));
  EXPECT_FALSE(NormalizeBdf("0000:3b:00.0.1"));
  EXPECT_FALSE(NormalizeBdf("0000:3b:20"));    // device numbers stop at 0x1f
  EXPECT_FALSE(NormalizeBdf("0000:123:00"));   // a bus is two hex digits
  EXPECT_FALSE(NormalizeBdf("1843.308145]"));  // a dmesg timestamp
}

}  // namespace
}  // namespace quotient::nodehealth
