// The status objects written to Queues and PodGroups.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "service/status_json.h"

namespace quotient::service {
namespace {

TEST(QueueStatusTest, WritesKaiResourceListsChildrenAndTheFairShare) {
  scheduler::QueueReport queue;
  queue.name = "team";
  queue.allocated[core::ShareResource::kGpu] = core::Quantity(2500);  // 2.5 GPUs in milli
  queue.allocated[core::ShareResource::kCpu] = core::Quantity(16000);
  queue.allocated[core::ShareResource::kMemory] = core::Quantity(int64_t{1} << 30);
  queue.allocated_non_preemptible[core::ShareResource::kGpu] = core::Quantity(1000);
  queue.requested[core::ShareResource::kGpu] = core::Quantity(4000);
  queue.fair_share[core::ShareResource::kGpu] = core::Quantity(3000);
  queue.fair_share[core::ShareResource::kCpu] = core::Quantity(500);
  queue.children = {"a", "b"};
  nlohmann::json status = nlohmann::json::parse(QueueStatusJson(queue, QueueCondition::Of(queue)));
  EXPECT_EQ(status["allocated"]["nvidia.com/gpu"], "2500m");
  EXPECT_EQ(status["allocated"]["cpu"], "16");
  EXPECT_EQ(status["allocated"]["memory"], "1073741824");
  EXPECT_EQ(status["allocatedNonPreemptible"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(status["allocatedNonPreemptible"]["cpu"], "0");
  EXPECT_EQ(status["requested"]["nvidia.com/gpu"], "4");
  EXPECT_EQ(status["fairShare"]["nvidia.com/gpu"], "3");
  EXPECT_EQ(status["fairShare"]["cpu"], "500m");
  EXPECT_EQ(status["childQueues"], nlohmann::json::array({"a", "b"}));
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["type"], "Valid");
  EXPECT_EQ(status["conditions"][0]["status"], "True");
  EXPECT_EQ(status["conditions"][0]["reason"], "Valid");
}

TEST(QueueStatusTest, TheValidConditionSaysWhatWasAcceptedAndWhatIsUnusable) {
  scheduler::QueueReport odd;
  odd.warnings = {"spec.resources.gpu.overQuotaWeight: negative weight -1; used as KAI uses it",
                  "spec.resources.cpu.quota: negative amount -2"};
  QueueCondition accepted = QueueCondition::Of(odd);
  accepted.since = core::Time(std::chrono::seconds(1'700'000'000));
  nlohmann::json status = nlohmann::json::parse(QueueStatusJson(odd, accepted));
  const nlohmann::json& c = status["conditions"][0];
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["reason"], "AcceptedWithWarnings");
  EXPECT_EQ(c["message"],
            "spec.resources.gpu.overQuotaWeight: negative weight -1; used as KAI uses it; "
            "spec.resources.cpu.quota: negative amount -2");
  EXPECT_EQ(c["lastTransitionTime"], "2023-11-14T22:13:20Z");

  scheduler::QueueReport orphan;
  orphan.problems = {"spec.parentQueue: parent queue gone does not exist"};
  orphan.warnings = {"spec.resources: missing"};
  const QueueCondition unusable = QueueCondition::Of(orphan);
  EXPECT_FALSE(unusable.valid);
  EXPECT_EQ(unusable.reason, "Unusable");
  EXPECT_EQ(unusable.message,
            "spec.parentQueue: parent queue gone does not exist; the queue's jobs are not "
            "scheduled");
  EXPECT_FALSE(unusable.SameAs(accepted));
}

TEST(PodGroupStatusTest, ConditionInKaiFormatWithReasonsSplit) {
  scheduler::PodGroupReport group;
  group.requested[core::ShareResource::kGpu] = core::Quantity(4000);
  SchedulingCondition condition;
  condition.node_pool = "";
  condition.reasons = {"OverLimit: queue team has reached its limit",
                       "Resources were found for 3 pods while 4 are required"};
  condition.transition_id = 2;
  condition.since = core::Time(std::chrono::seconds(1'700'000'000));
  nlohmann::json status = nlohmann::json::parse(PodGroupStatusJson(group, condition, false));
  EXPECT_EQ(status["resourcesStatus"]["requested"]["nvidia.com/gpu"], "4");
  EXPECT_EQ(status["resourcesStatus"]["allocated"]["nvidia.com/gpu"], "0");
  ASSERT_EQ(status["schedulingConditions"].size(), 1u);
  const nlohmann::json& c = status["schedulingConditions"][0];
  EXPECT_EQ(c["type"], "UnschedulableOnNodePool");
  EXPECT_EQ(c["nodePool"], "default");
  EXPECT_EQ(c["reason"], "Unschedulable");
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["transitionID"], "2");
  EXPECT_EQ(c["lastTransitionTime"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(c["message"],
            "OverLimit: queue team has reached its limit; Resources were found for 3 pods while 4 "
            "are required");
  ASSERT_EQ(c["reasons"].size(), 2u);
  EXPECT_EQ(c["reasons"][0]["reason"], "OverLimit");
  EXPECT_EQ(c["reasons"][0]["message"], "queue team has reached its limit");
  EXPECT_EQ(c["reasons"][1]["reason"], "PodSchedulingErrors");
}

TEST(PodGroupStatusTest, ConditionsClearedOrLeftAlone) {
  scheduler::PodGroupReport group;
  nlohmann::json cleared = nlohmann::json::parse(PodGroupStatusJson(group, std::nullopt, true));
  EXPECT_EQ(cleared["schedulingConditions"], nlohmann::json::array());
  nlohmann::json untouched = nlohmann::json::parse(PodGroupStatusJson(group, std::nullopt, false));
  EXPECT_FALSE(untouched.contains("schedulingConditions"));
}

TEST(SplitReasonTest, OnlyACamelCaseWordBeforeTheColonIsAReason) {
  EXPECT_EQ(SplitReason("QueueDoesNotExist: queue x does not exist"),
            (std::pair<std::string, std::string>{"QueueDoesNotExist", "queue x does not exist"}));
  EXPECT_EQ(SplitReason("0/2 nodes are available: 2 Insufficient GPUs").first,
            "PodSchedulingErrors");
  EXPECT_EQ(SplitReason("invalid pod: annotation gpu-fraction").first, "PodSchedulingErrors");
}

}  // namespace
}  // namespace quotient::service
