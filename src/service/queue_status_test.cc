#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "service/scheduler_service.h"

namespace quotient::service {
namespace {

TEST(QueueStatusTest, WritesKaiResourceListsAndTheFairShare) {
  scheduler::QueueReport queue;
  queue.name = "team";
  queue.allocated[core::ShareResource::kGpu] = core::Quantity(2500);  // 2.5 GPUs in milli
  queue.allocated[core::ShareResource::kCpu] = core::Quantity(16000);
  queue.allocated[core::ShareResource::kMemory] = core::Quantity(int64_t{1} << 30);
  queue.requested[core::ShareResource::kGpu] = core::Quantity(4000);
  queue.fair_share[core::ShareResource::kGpu] = core::Quantity(3000);
  queue.fair_share[core::ShareResource::kCpu] = core::Quantity(500);
  nlohmann::json status = nlohmann::json::parse(QueueStatusJson(queue));
  EXPECT_EQ(status["allocated"]["nvidia.com/gpu"], "2500m");
  EXPECT_EQ(status["allocated"]["cpu"], "16");
  EXPECT_EQ(status["allocated"]["memory"], "1073741824");
  EXPECT_EQ(status["requested"]["nvidia.com/gpu"], "4");
  EXPECT_EQ(status["fairShare"]["nvidia.com/gpu"], "3");
  EXPECT_EQ(status["fairShare"]["cpu"], "500m");
}

}  // namespace
}  // namespace quotient::service
