#include "remediator/step_objects.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quotient::remediator {
namespace {

using nlohmann::json;

const StepRef kRef{"gpu-1", "20250101-000000", "gpu-reset", 1};
const PodStepOptions kOptions{
    "quotient-system", "quotient:1", "remediation-step", "nvidia", {"regcred"}};

TEST(StepObjects, NamesAreNodeIncidentStepAttemptAndStayValidWhenLong) {
  EXPECT_EQ(StepObjectName(kRef), "gpu-1-20250101-000000-gpu-reset-1");
  EXPECT_EQ(IncidentRecordName("gpu-1", "20250101-000000"), "incident-gpu-1-20250101-000000");
  StepRef long_ref = kRef;
  long_ref.node = std::string(250, 'n');
  const std::string name = StepObjectName(long_ref);
  EXPECT_EQ(name.size(), 253u);
  EXPECT_TRUE(name.ends_with("-20250101-000000-gpu-reset-1")) << name;
  StepRef other = long_ref;
  other.node[0] = 'm';  // differs only in the part cut off: the hash tells them apart
  EXPECT_NE(StepObjectName(other), name);
}

TEST(StepObjects, AStepPodIsPinnedPrivilegedOnTheHostAndToleratesOurTaints) {
  const json pod = json::parse(StepPodJson(
      kRef, {"nsenter", "--target", "1", "--", "nvidia-smi", "-r"}, "boot-1", kOptions));
  EXPECT_EQ(pod["metadata"]["name"], "gpu-1-20250101-000000-gpu-reset-1");
  EXPECT_EQ(pod["metadata"]["namespace"], "quotient-system");
  EXPECT_EQ(pod["metadata"]["labels"]["quotient.dev/remediation-step"], "gpu-reset");
  EXPECT_EQ(pod["metadata"]["annotations"]["quotient.dev/boot-id-before"], "boot-1");
  EXPECT_EQ(pod["spec"]["nodeName"], "gpu-1");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(pod["spec"]["hostPID"], true);
  EXPECT_EQ(pod["spec"]["serviceAccountName"], "remediation-step");
  EXPECT_EQ(pod["spec"]["runtimeClassName"], "nvidia");
  EXPECT_EQ(pod["spec"]["imagePullSecrets"], json::parse(R"([{"name":"regcred"}])"));
  EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["spec"]["tolerations"], json::parse(R"([{"operator":"Exists"}])"));
  const json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["image"], "quotient:1");
  EXPECT_EQ(c["securityContext"]["privileged"], true);
  EXPECT_EQ(c["securityContext"]["runAsUser"], 0) << "the image's user has no capabilities";
  EXPECT_EQ(c["command"], json::parse(R"(["nsenter","--target","1","--","nvidia-smi","-r"])"));
}

TEST(StepObjects, TheValidationPodIsNotPrivilegedAndSeesEveryGpu) {
  const json pod = json::parse(ValidationPodJson({"gpu-1", "20250101-000000", "validate", 3},
                                                 {"quotient", "validate"}, kOptions));
  EXPECT_EQ(pod["metadata"]["name"], "gpu-1-20250101-000000-validate-3");
  EXPECT_FALSE(pod["spec"].contains("hostPID"));
  EXPECT_FALSE(pod["spec"]["containers"][0].contains("securityContext"));
  bool all = false;
  for (const json& e : pod["spec"]["containers"][0]["env"]) {
    if (e["name"] == "NVIDIA_VISIBLE_DEVICES") all = e["value"] == "all";
  }
  EXPECT_TRUE(all);
}

TEST(StepObjects, AJobGetsTheStepsIdentityInItsContainersEnvironment) {
  Result<std::string> job = StepJobJson(
      kRef,
      R"({"template":{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"}]}]}}})",
      "quotient-system");
  ASSERT_TRUE(job.ok()) << job.message();
  const json j = json::parse(*job);
  EXPECT_EQ(j["kind"], "Job");
  EXPECT_EQ(j["metadata"]["annotations"]["quotient.dev/remediation-node"], "gpu-1");
  const json& env = j["spec"]["template"]["spec"]["containers"][0]["env"];
  ASSERT_EQ(env.size(), 4u);
  EXPECT_EQ(env[0]["name"], "X");
  EXPECT_EQ(env[1], json::parse(R"({"name":"NODE_NAME","value":"gpu-1"})"));
  EXPECT_EQ(env[2], json::parse(R"({"name":"INCIDENT","value":"20250101-000000"})"));
  EXPECT_EQ(env[3], json::parse(R"({"name":"STEP","value":"gpu-reset"})"));
  EXPECT_EQ(StepJobJson(kRef, R"({"template":{}})", "ns").message(),
            "steps.gpu-reset.jobTemplate.template.spec.containers: missing or empty");
}

TEST(StepObjects, TheReferenceReadsBackAndABadAttemptIsNamed) {
  const json pod = json::parse(StepPodJson(kRef, {"true"}, "", kOptions));
  std::map<std::string, std::string> labels = pod["metadata"]["labels"];
  std::map<std::string, std::string> annotations = pod["metadata"]["annotations"];
  Result<StepRef> ref = ReadStepRef(labels, annotations);
  ASSERT_TRUE(ref.ok()) << ref.message();
  EXPECT_EQ(*ref, kRef);
  annotations["quotient.dev/remediation-attempt"] = "0";
  EXPECT_EQ(ReadStepRef(labels, annotations).message(),
            "quotient.dev/remediation-attempt: expected a positive integer, got \"0\"");
}

TEST(StepObjects, TheWebhookGetsTheEvidence) {
  const json body = json::parse(WebhookPayload(
      kRef, {{"GpuXidFatal", "Xid79", "GPU-1 lost", core::Time(std::chrono::seconds(0))}}));
  EXPECT_EQ(body["node"], "gpu-1");
  EXPECT_EQ(body["attempt"], 1);
  EXPECT_EQ(body["evidence"][0]["reason"], "Xid79");
  EXPECT_EQ(body["evidence"][0]["since"], "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace quotient::remediator
