// The webhook's decisions on AdmissionReviews of pods, as the API server sends them.
#include "webhook/gpu_admission.h"

#include <gtest/gtest.h>

namespace quotient::webhook {
namespace {

using nlohmann::json;

json Pod(const json& annotations, const json& gpu_limit = nullptr,
         const std::string& scheduler = "quotient") {
  json container = {{"name", "main"}, {"image", "trainer"}};
  if (!gpu_limit.is_null()) container["resources"]["limits"]["nvidia.com/gpu"] = gpu_limit;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "train-0"}, {"namespace", "ml"}, {"annotations", annotations}}},
          {"spec", {{"schedulerName", scheduler}, {"containers", json::array({container})}}}};
}

AdmissionRequest Create(const json& pod) { return {"0a1b2c3d-4e5f", "CREATE", pod}; }

TEST(GpuAdmissionTest, PodsOfOtherSchedulersAndWithoutSharingAreLeftAlone) {
  const AdmissionSettings settings;
  // Another scheduler's pod: even a malformed fraction is not ours to judge.
  AdmissionResult other =
      ReviewPod(Create(Pod({{"gpu-fraction", "7"}}, nullptr, "other")), settings);
  EXPECT_TRUE(other.allowed);
  EXPECT_TRUE(other.patch.empty());
  // Whole GPUs: nothing to wire.
  AdmissionResult whole = ReviewPod(Create(Pod(json::object(), "2")), settings);
  EXPECT_TRUE(whole.allowed);
  EXPECT_TRUE(whole.patch.empty());
}

TEST(GpuAdmissionTest, AFractionalPodIsWiredToItsConfigMapAndTheInterposer) {
  const AdmissionSettings settings;
  const json pod = Pod({{"gpu-fraction", "0.5"}});
  const AdmissionResult r = ReviewPod(Create(pod), settings);
  ASSERT_TRUE(r.allowed) << r.message;
  const json patched = pod.patch(r.patch);
  // KAI's naming: <name>-<7 characters of the request uid>-shared-gpu, container 0.
  const std::string prefix = "train-0-0a1b2c3-shared-gpu";
  EXPECT_EQ(patched["metadata"]["annotations"]["runai/shared-gpu-configmap"], prefix);
  const json& c = patched["spec"]["containers"][0];
  ASSERT_EQ(c["env"].size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(c["env"][i]["valueFrom"]["configMapKeyRef"]["name"], prefix + "-0");
    EXPECT_EQ(c["env"][i]["valueFrom"]["configMapKeyRef"]["key"], c["env"][i]["name"]);
  }
  EXPECT_EQ(c["env"][0]["name"], "NVIDIA_VISIBLE_DEVICES");
  EXPECT_EQ(c["env"][2]["name"], "GPU_PORTION");
  EXPECT_EQ(c["env"][3]["name"], "QUOTIENT_GPU_MEMORY_LIMIT");
  EXPECT_EQ(c["env"][4]["name"], "LD_PRELOAD");
  EXPECT_EQ(c["env"][4]["value"], "/usr/local/quotient/interposer/libquotient_gpu_interposer.so");
  EXPECT_EQ(c["envFrom"][0]["configMapRef"]["name"], prefix + "-0-evar");
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"], "/usr/local/quotient/interposer");
  EXPECT_EQ(c["volumeMounts"][0]["readOnly"], true);
  EXPECT_EQ(patched["spec"]["volumes"][0]["hostPath"]["path"], "/var/lib/quotient/interposer");
}

TEST(GpuAdmissionTest, ExistingListsAreAppendedToAndTheNamedContainerGetsTheGpu) {
  json pod = Pod({{"gpu-memory", "20000"}, {"gpu-fraction-container-name", "worker"}});
  pod["spec"]["containers"][0]["env"] = json::array({{{"name", "A"}, {"value", "1"}}});
  pod["spec"]["containers"].push_back({{"name", "worker"},
                                       {"image", "w"},
                                       {"env", json::array({{{"name", "B"}, {"value", "2"}}})}});
  pod["spec"]["volumes"] = json::array({{{"name", "data"}, {"emptyDir", json::object()}}});
  const AdmissionResult r = ReviewPod(Create(pod), AdmissionSettings{});
  ASSERT_TRUE(r.allowed) << r.message;
  const json patched = pod.patch(r.patch);
  // The sidecar is untouched; the worker keeps its own env and gets the rest after it.
  EXPECT_EQ(patched["spec"]["containers"][0]["env"].size(), 1u);
  const json& worker = patched["spec"]["containers"][1];
  ASSERT_EQ(worker["env"].size(), 6u);
  EXPECT_EQ(worker["env"][0]["name"], "B");
  EXPECT_EQ(worker["env"][1]["valueFrom"]["configMapKeyRef"]["name"],
            "train-0-0a1b2c3-shared-gpu-1");
  EXPECT_EQ(patched["spec"]["volumes"].size(), 2u);
  EXPECT_EQ(patched["spec"]["volumes"][1]["name"], "quotient-interposer");
  // No such container: refused, naming the annotation.
  pod["metadata"]["annotations"]["gpu-fraction-container-name"] = "nope";
  const AdmissionResult missing = ReviewPod(Create(pod), AdmissionSettings{});
  EXPECT_FALSE(missing.allowed);
  EXPECT_NE(missing.message.find("gpu-fraction-container-name: no container named \"nope\""),
            std::string::npos)
      << missing.message;
}

TEST(GpuAdmissionTest, MalformedSharingIsRefusedWithWhatIsWrong) {
  const AdmissionSettings settings;
  const auto refused = [&](const json& pod, const std::string& says) {
    const AdmissionResult r = ReviewPod(Create(pod), settings);
    EXPECT_FALSE(r.allowed) << says;
    EXPECT_NE(r.message.find(says), std::string::npos) << r.message;
    EXPECT_TRUE(r.patch.empty());
  };
  refused(Pod({{"gpu-fraction", "1.5"}}), "gpu-fraction: \"1.5\" is not a fraction in (0, 1]");
  refused(Pod({{"gpu-fraction", "0"}}), "is not a fraction in (0, 1]");
  refused(Pod({{"gpu-memory", "lots"}}), "gpu-memory: \"lots\" is not a positive integer");
  refused(Pod({{"gpu-fraction", "0.5"}}, "1"), "cannot be combined with an nvidia.com/gpu");
  refused(Pod({{"gpu-fraction-num-devices", "2"}}), "requires gpu-fraction or gpu-memory");
  refused(Pod({{"gpu-fraction", "0.5"}, {"gpu-memory", "100"}}), "cannot be combined");
}

TEST(GpuAdmissionTest, SharingOnADisabledClusterIsRefusedAndUpdatesAreOnlyChecked) {
  AdmissionSettings disabled;
  disabled.gpu_sharing_enabled = false;
  const AdmissionResult r = ReviewPod(Create(Pod({{"gpu-fraction", "0.25"}})), disabled);
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.message.find("disabled on this cluster"), std::string::npos) << r.message;
  // UPDATE: checked, not mutated (a container's env cannot change after creation).
  const AdmissionRequest update{"u2", "UPDATE", Pod({{"gpu-fraction", "0.25"}})};
  const AdmissionResult updated = ReviewPod(update, AdmissionSettings{});
  EXPECT_TRUE(updated.allowed);
  EXPECT_TRUE(updated.patch.empty());
  const AdmissionRequest bad_update{"u3", "UPDATE", Pod({{"gpu-fraction", "2"}})};
  EXPECT_FALSE(ReviewPod(bad_update, AdmissionSettings{}).allowed);
}

TEST(GpuAdmissionTest, ReadsReviewsAndAnswersInTheirFormat) {
  Result<AdmissionRequest> request = ParseAdmissionReview(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
          "request":{"uid":"abc","operation":"CREATE","object":{"metadata":{"name":"p"}}}})");
  ASSERT_TRUE(request.ok()) << request.message();
  EXPECT_EQ(request->uid, "abc");
  EXPECT_EQ(request->operation, "CREATE");
  EXPECT_EQ(ParseAdmissionReview("{}").message(), "request: missing");
  EXPECT_EQ(ParseAdmissionReview(R"({"request":{"object":{}}})").message(), "request.uid: missing");
  EXPECT_EQ(ParseAdmissionReview("nope").message(), "not a JSON object");

  AdmissionResult patched;
  patched.patch = json::array({{{"op", "add"}, {"path", "/x"}, {"value", 1}}});
  const json ok = json::parse(AdmissionReviewResponse("abc", patched));
  EXPECT_EQ(ok["kind"], "AdmissionReview");
  EXPECT_EQ(ok["response"]["uid"], "abc");
  EXPECT_EQ(ok["response"]["allowed"], true);
  EXPECT_EQ(ok["response"]["patchType"], "JSONPatch");
  // base64 of [{"op":"add","path":"/x","value":1}]
  EXPECT_EQ(ok["response"]["patch"], "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3giLCJ2YWx1ZSI6MX1d");
  AdmissionResult no;
  no.allowed = false;
  no.message = "why";
  const json refused = json::parse(AdmissionReviewResponse("abc", no));
  EXPECT_EQ(refused["response"]["allowed"], false);
  EXPECT_EQ(refused["response"]["status"]["message"], "why");
  EXPECT_FALSE(refused["response"].contains("patch"));
}

}  // namespace
}  // namespace quotient::webhook
