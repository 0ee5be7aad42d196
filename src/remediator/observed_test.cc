#include "remediator/observed.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quotient::remediator {
namespace {

using nlohmann::json;

kubeclient::RawObject Raw(const json& object) {
  Result<kubeclient::RawObject> raw = kubeclient::ReadRawObject(object.dump());
  EXPECT_TRUE(raw.ok()) << raw.message();
  return *raw;
}

TEST(ObservedNode, KeepsFaultConditionsTaintsBootIdAndGpusButNotTheKubeletsConditions) {
  const json node = {
      {"metadata",
       {{"name", "gpu-1"},
        {"uid", "u1"},
        {"labels", {{"pool", "a"}}},
        {"annotations", {{"quotient.dev/remediation", R"({"state":"cordoned"})"}}}}},
      {"spec",
       {{"unschedulable", true},
        {"taints", json::array({{{"key", "quotient.dev/unhealthy"}, {"effect", "NoSchedule"}},
                                {{"key", "other"}, {"effect", "NoSchedule"}}})}}},
      {"status",
       {{"nodeInfo", {{"bootID", "boot-7"}}},
        {"capacity", {{"nvidia.com/gpu", "8"}}},
        {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}},
                                    {{"type", "MemoryPressure"}, {"status", "False"}},
                                    {{"type", "GpuXidFatal"},
                                     {"status", "True"},
                                     {"reason", "Xid79"},
                                     {"message", "GPU-1 fell off the bus"},
                                     {"lastTransitionTime", "2025-01-01T00:00:10Z"}},
                                    {{"type", "IbPortDegraded"}, {"status", "Unknown"}}})}}}};
  Result<ObservedNode> n = DecodeNode(Raw(node));
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_EQ(n->name, "gpu-1");
  EXPECT_EQ(n->uid, "u1");
  EXPECT_EQ(n->labels.at("pool"), "a");
  EXPECT_EQ(n->record_json, R"({"state":"cordoned"})");
  EXPECT_TRUE(n->unschedulable);
  EXPECT_TRUE(n->unhealthy_taint);
  EXPECT_FALSE(n->repair_taint);
  EXPECT_TRUE(n->ready);
  EXPECT_EQ(n->boot_id, "boot-7");
  EXPECT_EQ(n->gpus, 8);
  ASSERT_EQ(n->conditions.size(), 2u) << "Ready and MemoryPressure are the kubelet's";
  EXPECT_EQ(n->conditions[0].type, "GpuXidFatal");
  EXPECT_EQ(n->conditions[0].status, remediation::ConditionStatus::kTrue);
  EXPECT_EQ(n->conditions[0].reason, "Xid79");
  EXPECT_EQ(n->conditions[0].last_transition,
            core::Time(std::chrono::sys_days(std::chrono::year(2025) / 1 / 1)) +
                std::chrono::seconds(10));
  EXPECT_EQ(n->conditions[1].status, remediation::ConditionStatus::kUnknown);
}

TEST(ObservedNode, AMilliGpuCapacityCountsWholeGpus) {
  Result<ObservedNode> n = DecodeNode(Raw(
      {{"metadata", {{"name", "n"}}}, {"status", {{"capacity", {{"nvidia.com/gpu", "4000m"}}}}}}));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->gpus, 4);
  EXPECT_FALSE(n->ready) << "no Ready condition is not Ready";
}

TEST(ObservedPod, TellsDaemonSetMirrorTerminatingAndGangPods) {
  const json pod = {
      {"metadata",
       {{"name", "w-0"},
        {"namespace", "team"},
        {"uid", "p1"},
        {"deletionTimestamp", "2025-01-01T00:00:00Z"},
        {"annotations", {{"pod-group-name", "pg-1"}, {"kubernetes.io/config.mirror", "x"}}},
        {"ownerReferences", json::array({{{"apiVersion", "apps/v1"},
                                          {"kind", "DaemonSet"},
                                          {"name", "ds"},
                                          {"uid", "d1"},
                                          {"controller", true}}})}}},
      {"spec", {{"nodeName", "gpu-1"}}}};
  Result<ObservedPod> p = DecodePod(Raw(pod));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->key, "team/w-0");
  EXPECT_EQ(p->node, "gpu-1");
  EXPECT_TRUE(p->daemonset);
  EXPECT_TRUE(p->mirror);
  EXPECT_TRUE(p->terminating);
  EXPECT_EQ(p->gang, "team/pg-1");
  EXPECT_FALSE(p->step.has_value());
}

json StepPod(const std::string& phase) {
  return {
      {"metadata",
       {{"name", "s"},
        {"namespace", "quotient-system"},
        {"labels", {{"quotient.dev/remediation-step", "gpu-reset"}}},
        {"annotations",
         {{"quotient.dev/remediation-node", "gpu-1"},
          {"quotient.dev/remediation-incident", "20250101-000000"},
          {"quotient.dev/remediation-attempt", "2"},
          {"quotient.dev/boot-id-before", "boot-1"}}}}},
      {"status",
       {{"phase", phase},
        {"containerStatuses",
         json::array({{{"name", "step"},
                       {"state", {{"terminated", {{"exitCode", 3}, {"reason", "Error"}}}}}}})}}}};
}

TEST(ObservedPod, ReadsOurStepPodsAndWhyTheyFailed) {
  Result<ObservedPod> failed = DecodePod(Raw(StepPod("Failed")));
  ASSERT_TRUE(failed.ok()) << failed.message();
  ASSERT_TRUE(failed->step.has_value());
  EXPECT_EQ(failed->step->ref, (StepRef{"gpu-1", "20250101-000000", "gpu-reset", 2}));
  EXPECT_EQ(failed->step->phase, StepPhase::kFailed);
  EXPECT_EQ(failed->step->message, "container step: exit code 3 (Error)");
  EXPECT_EQ(failed->step->boot_id_before, "boot-1");
  EXPECT_EQ(DecodePod(Raw(StepPod("Succeeded")))->step->phase, StepPhase::kSucceeded);
  EXPECT_EQ(DecodePod(Raw(StepPod("Running")))->step->phase, StepPhase::kRunning);
}

TEST(ObservedPod, AStepPodWithoutItsReferenceIsAnErrorNamingIt) {
  json pod = StepPod("Running");
  pod["metadata"]["annotations"].erase("quotient.dev/remediation-node");
  Result<ObservedPod> p = DecodePod(Raw(pod));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(), "quotient-system/s: missing quotient.dev/remediation-node");
}

TEST(ObservedStep, AJobIsDoneByItsConditionsAndAWebhookByItsConfigMap) {
  json job = StepPod("");
  job.erase("status");
  job["status"]["conditions"] =
      json::array({{{"type", "Failed"},
                    {"status", "True"},
                    {"reason", "BackoffLimitExceeded"},
                    {"message", "Job has reached the specified backoff limit"}}});
  Result<ObservedStep> j = DecodeStepJob(Raw(job));
  ASSERT_TRUE(j.ok()) << j.message();
  EXPECT_EQ(j->phase, StepPhase::kFailed);
  EXPECT_EQ(j->message,
            "job failed: BackoffLimitExceeded: Job has reached the specified backoff limit");
  job["status"]["conditions"] = json::array({{{"type", "Complete"}, {"status", "True"}}});
  EXPECT_EQ(DecodeStepJob(Raw(job))->phase, StepPhase::kSucceeded);
  job["status"]["conditions"] = json::array();
  EXPECT_EQ(DecodeStepJob(Raw(job))->phase, StepPhase::kRunning);

  json result = StepPod("");
  result.erase("status");
  result["data"] = {{"status", "failed"}, {"message", "HTTP 500 from https://x"}};
  Result<ObservedStep> c = DecodeStepResult(Raw(result));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->phase, StepPhase::kFailed);
  EXPECT_EQ(c->message, "HTTP 500 from https://x");
  result["data"]["status"] = "succeeded";
  EXPECT_EQ(DecodeStepResult(Raw(result))->phase, StepPhase::kSucceeded);
}

}  // namespace
}  // namespace quotient::remediator
