// The per-GPU health annotation, in the form the scheduler's node codec reads
// (src/kube/node_codec.cc: {"unhealthy": [{"uuid", "index", "reason"}]}).
#include "nodehealth/gpu_health.h"

#include <gtest/gtest.h>

namespace quotient::nodehealth {
namespace {

TEST(NodeHealthGpuHealthTest, OnlyUnhealthyAndUnknownGpusAreListed) {
  const std::vector<GpuHealth> gpus = {
      {0, "GPU-0000", "0000:00:00", GpuHealthState::kHealthy, {}},
      {1, "GPU-0001", "0000:01:00", GpuHealthState::kUnhealthy, {"RowRemapPending", "Xid79"}},
      {2, "GPU-0002", "0000:02:00", GpuHealthState::kUnknown, {}},
  };
  const std::string value = GpuHealthAnnotation(gpus);
  EXPECT_EQ(value,
            R"({"unhealthy":[{"bdf":"0000:01:00","index":1,"reason":"RowRemapPending,Xid79",)"
            R"("uuid":"GPU-0001"}],"unknown":[{"bdf":"0000:02:00","index":2,"uuid":"GPU-0002"}]})");
  Result<std::vector<GpuHealth>> back = ParseGpuHealthAnnotation(value);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].index, 1);
  EXPECT_EQ((*back)[0].state, GpuHealthState::kUnhealthy);
  EXPECT_EQ((*back)[0].reasons, gpus[1].reasons);
  EXPECT_EQ((*back)[1].state, GpuHealthState::kUnknown);
}

TEST(NodeHealthGpuHealthTest, AllHealthyIsTwoEmptyLists) {
  EXPECT_EQ(GpuHealthAnnotation({{0, "GPU-0000", "0000:00:00", GpuHealthState::kHealthy, {}}}),
            R"({"unhealthy":[],"unknown":[]})");
}

TEST(NodeHealthGpuHealthTest, AMalformedAnnotationIsAnErrorNotAGuess) {
  EXPECT_EQ(ParseGpuHealthAnnotation("[]").message(), "GPU health annotation: not a JSON object");
  EXPECT_EQ(ParseGpuHealthAnnotation(R"({"unhealthy": 3})").message(),
            "GPU health annotation unhealthy: not a list");
  EXPECT_EQ(ParseGpuHealthAnnotation(R"({"unhealthy": [{"index": 0}]})").message(),
            "GPU health annotation unhealthy[0]: needs an integer index and a uuid");
}

}  // namespace
}  // namespace quotient::nodehealth
