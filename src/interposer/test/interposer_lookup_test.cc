// What cuGetProcAddress hands out under the interposer, checked by the identity of the answer
// (dladdr names the exported function a pointer is): every ABI version of a wrapped name and its
// per-thread-default-stream variant is a hook, names we do not wrap stay the driver's. Then the
// v1 entries and arrays, whose charges follow their own rules.
#include "interposer_fixture.h"

namespace quotient::interposer::testing {
namespace {

constexpr int kPerThread = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

std::string lookup(const std::string& name, int version, int flags) {
  return "gpa:" + name + ":" + std::to_string(version) + ":" + std::to_string(flags);
}

TEST_F(InterposerTest, VersionedLookupsReturnTheHookOfTheVersionTheDriverChose) {
  const Lines lines = probe({
      lookup("cuMemAlloc", 12080, 0),
      lookup("cuMemAlloc", 3020, 0),
      lookup("cuMemAlloc", 3000, 0),
      lookup("cuMemFree", 3000, 0),
      lookup("cuMemGetInfo", 3000, 0),
      lookup("cuDeviceTotalMem", 3000, 0),
      lookup("cuArray3DCreate", 3000, 0),
      lookup("cuGraphInstantiate", 10000, 0),
      lookup("cuGraphInstantiate", 11000, 0),
      lookup("cuGraphInstantiate", 12000, 0),
      lookup("cuGraphAddNode", 12020, 0),
      lookup("cuGraphAddNode", 12080, 0),
      lookup("cuGetProcAddress", 12000, 0),
  });
  EXPECT_EQ(lines, (Lines{
                       "gpa cuMemAlloc interposer:cuMemAlloc_v2",
                       "gpa cuMemAlloc interposer:cuMemAlloc_v2",
                       "gpa cuMemAlloc interposer:cuMemAlloc",
                       "gpa cuMemFree interposer:cuMemFree",
                       "gpa cuMemGetInfo interposer:cuMemGetInfo",
                       "gpa cuDeviceTotalMem interposer:cuDeviceTotalMem",
                       "gpa cuArray3DCreate interposer:cuArray3DCreate",
                       "gpa cuGraphInstantiate interposer:cuGraphInstantiate",
                       "gpa cuGraphInstantiate interposer:cuGraphInstantiate_v2",
                       "gpa cuGraphInstantiate interposer:cuGraphInstantiateWithFlags",
                       "gpa cuGraphAddNode interposer:cuGraphAddNode",
                       "gpa cuGraphAddNode interposer:cuGraphAddNode_v2",
                       "gpa cuGetProcAddress interposer:cuGetProcAddress_v2",
                   }));
}

TEST_F(InterposerTest, PerThreadLookupsReturnThePerThreadHooks) {
  // With the per-thread flag the driver answers the _ptsz variant where one exists, else the
  // plain entry: both must be hooks. cuMemcpy_ptds (a copy, no allocation) stays the driver's.
  const Lines lines = probe({
      lookup("cuMemAllocAsync", 12080, kPerThread),
      lookup("cuMemAllocFromPoolAsync", 12080, kPerThread),
      lookup("cuMemFreeAsync", 12080, kPerThread),
      lookup("cuGraphInstantiateWithParams", 12080, kPerThread),
      lookup("cuMemAlloc", 12080, kPerThread),
      lookup("cuMemAlloc", 3000, kPerThread),
      lookup("cuMemGetInfo", 12080, kPerThread),
      lookup("cuGraphAddMemAllocNode", 12080, kPerThread),
      lookup("cuMemAllocAsync", 12080, 0),
      lookup("cuMemcpy", 12080, kPerThread),
      lookup("cuGraphLaunch", 12080, kPerThread),
      lookup("cuDeviceGraphMemTrim", 12080, kPerThread),
      lookup("cuNoSuchEntry", 12080, kPerThread),
  });
  EXPECT_EQ(lines, (Lines{
                       "gpa cuMemAllocAsync interposer:cuMemAllocAsync_ptsz",
                       "gpa cuMemAllocFromPoolAsync interposer:cuMemAllocFromPoolAsync_ptsz",
                       "gpa cuMemFreeAsync interposer:cuMemFreeAsync_ptsz",
                       "gpa cuGraphInstantiateWithParams "
                       "interposer:cuGraphInstantiateWithParams_ptsz",
                       "gpa cuMemAlloc interposer:cuMemAlloc_v2",
                       "gpa cuMemAlloc interposer:cuMemAlloc",
                       "gpa cuMemGetInfo interposer:cuMemGetInfo_v2",
                       "gpa cuGraphAddMemAllocNode interposer:cuGraphAddMemAllocNode",
                       "gpa cuMemAllocAsync interposer:cuMemAllocAsync",
                       "gpa cuMemcpy driver:cuMemcpy_ptds",
                       "gpa cuGraphLaunch driver:cuGraphLaunch_ptsz",
                       "gpa cuDeviceGraphMemTrim driver:cuDeviceGraphMemTrim",
                       "gpa cuNoSuchEntry none",
                   }));
}

TEST_F(InterposerTest, TheV1EntriesAreLimitedAndReachTheDriver) {
  // alloc-v1 looks cuMemAlloc up with cudaVersion 3000 and the per-thread flag: the v1 entry.
  // The refused allocation never reaches the driver (2 v1 allocations ran, not 3).
  EXPECT_EQ(
      probe({"ctx:0", "alloc-v1:600", "alloc-v1:600", "meminfo-v1", "free-v1", "alloc-v1:1000",
             "alloc:24", "alloc:1", "v1-calls"}),
      (Lines{"alloc-v1 0", line("alloc-v1", kOutOfMemory),
             "meminfo-v1 0 " + std::to_string(424 * kMiB) + " " + std::to_string(kGiB), "free-v1 0",
             "alloc-v1 0", "alloc 0", line("alloc", kOutOfMemory), "v1-calls 2"}));
}

TEST_F(InterposerTest, ArraysAreChargedByFormatAndDeferredArraysNotAtAll) {
  // BC1 (format 145) packs a 4×4 block in 8 bytes: 8192 × 8192 × 16 layers = 512 MiB, so two
  // fit in 1 GiB (at the old 4 bytes per texel not even one would). The fake driver sizes arrays
  // its own, larger way: it gets 64 GiB.
  EXPECT_EQ(
      probe({"ctx:0", "array3d:8192:8192:16:1:145:4", "array3d:8192:8192:16:1:145:4", "alloc:1"},
            {"FAKECUDA_TOTAL_BYTES=" + std::to_string(64 * kGiB)}),
      (Lines{"array3d 0", "array3d 0", line("alloc", kOutOfMemory)}));
  // UNSIGNED_INT8 × 4 channels (format 1): 4 bytes per element, 1024 × 1024 × 200 = 800 MiB.
  EXPECT_EQ(probe({"ctx:0", "array3d:1024:1024:200:0:1:4", "alloc:224", "alloc:1"}),
            (Lines{"array3d 0", "alloc 0", line("alloc", kOutOfMemory)}));
  // Deferred mapping (flag 0x80): memory comes later from cuMemCreate, charged there.
  EXPECT_EQ(probe({"ctx:0", "array3d:1024:1024:600:128", "alloc:1024"}),
            (Lines{"array3d 0", "alloc 0"}));
}

TEST_F(InterposerTest, MipmappedArraysAreChargedForEveryLevel) {
  // FLOAT 8192² with 14 levels: 256 MiB + 64 + 16 + ... = 341⅓ MiB, so 683 MiB more does not
  // fit and 682 does (the top level alone would leave 768).
  EXPECT_EQ(probe({"ctx:0", "mipmap:8192:8192:14", "alloc:683", "alloc:682", "free-last",
                   "mipmap-destroy", "alloc:1024"}),
            (Lines{"mipmap 0", line("alloc", kOutOfMemory), "alloc 0", "free-last 0",
                   "mipmap-destroy 0", "alloc 0"}));
}

}  // namespace
}  // namespace quotient::interposer::testing
