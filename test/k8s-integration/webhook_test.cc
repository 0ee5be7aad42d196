// `quotient webhook` called by the real API server: a Mutating- and a
// ValidatingWebhookConfiguration point at the binary (TLS, caBundle from a test CA), limited to
// this test's namespace (webhook_support.h), and pods are created and updated through the API as
// users do.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "webhook_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::Resource;
using kubeclient::resources::Pods;
using nlohmann::json;

json SharingPod(const std::string& name, const json& annotations,
                const std::string& scheduler = "quotient-webhook") {
  json pod = json::parse(PodJson(name));
  pod["spec"]["schedulerName"] = scheduler;
  pod["metadata"]["annotations"] = annotations;
  return pod;
}

class WebhookIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    admin_ = AdminClient().release();
    webhook_ = new RegisteredWebhook(*admin_, "quotient-it-webhook", "quotient-webhook", "on");
    ns_ = CreateNamespace(*admin_, "webhook");
    ASSERT_TRUE(webhook_->Cover(ns_, "quotient-webhook", "on"))
        << "the API server never called the webhook";
  }
  static void TearDownTestSuite() {
    EXPECT_TRUE(admin_->Delete(kubeclient::resources::Namespaces(), "", ns_).ok());
    delete webhook_;
    delete admin_;
  }

  // Creates the pod; the API server's answer.
  static kubeclient::ApiResult<kubeclient::RawObject> Create(const json& pod) {
    return admin_->Create(Pods(), ns_, pod.dump());
  }

  static inline kubeclient::Client* admin_ = nullptr;
  static inline RegisteredWebhook* webhook_ = nullptr;
  static inline std::string ns_;
};

std::string EnvValueFrom(const json& container, const std::string& name) {
  for (const json& env : container.value("env", json::array())) {
    if (env.value("name", "") != name) continue;
    if (env.contains("value")) return env["value"].get<std::string>();
    return env["valueFrom"]["configMapKeyRef"]["name"].get<std::string>() + "/" +
           env["valueFrom"]["configMapKeyRef"]["key"].get<std::string>();
  }
  return "";
}

TEST_F(WebhookIntegrationTest, AFractionalPodIsCreatedWiredToItsConfigMapAndTheInterposer) {
  auto created = Create(SharingPod("half", {{"gpu-fraction", "0.5"}}));
  ASSERT_TRUE(created.ok()) << created.error().Describe();
  const json pod = json::parse(created->json);
  const std::string prefix = pod["metadata"]["annotations"]["runai/shared-gpu-configmap"];
  // <name>-<7 characters of the request uid>-shared-gpu
  ASSERT_EQ(prefix.rfind("half-", 0), 0u) << prefix;
  EXPECT_EQ(prefix.size(), std::string("half-").size() + 7 + std::string("-shared-gpu").size());
  const json& container = pod["spec"]["containers"][0];
  for (const char* key : {"NVIDIA_VISIBLE_DEVICES", "RUNAI_NUM_OF_GPUS", "GPU_PORTION",
                          "QUOTIENT_GPU_MEMORY_LIMIT"}) {
    EXPECT_EQ(EnvValueFrom(container, key), prefix + "-0/" + key);
  }
  EXPECT_EQ(EnvValueFrom(container, "LD_PRELOAD"),
            "/usr/local/quotient/interposer/libquotient_gpu_interposer.so");
  EXPECT_EQ(container["envFrom"][0]["configMapRef"]["name"], prefix + "-0-evar");
  bool mounted = false;
  for (const json& volume : pod["spec"]["volumes"]) {
    if (volume.value("name", "") == "quotient-interposer") {
      mounted = volume["hostPath"]["path"] == "/var/lib/quotient/interposer";
    }
  }
  EXPECT_TRUE(mounted) << pod["spec"]["volumes"].dump();
}

TEST_F(WebhookIntegrationTest, InvalidSharingRequestsAreRefusedWithTheReason) {
  struct Case {
    const char* name;
    json annotations;
    bool whole_gpu;
    const char* expected;
  };
  const Case cases[] = {
      {"fraction-zero", {{"gpu-fraction", "0"}}, false, "gpu-fraction"},
      {"fraction-big", {{"gpu-fraction", "1.5"}}, false, "gpu-fraction"},
      {"memory-text", {{"gpu-memory", "lots"}}, false, "gpu-memory"},
      {"fraction-and-whole", {{"gpu-fraction", "0.5"}}, true, "nvidia.com/gpu"},
      {"devices-alone", {{"gpu-fraction-num-devices", "2"}}, false, "gpu-fraction-num-devices"},
  };
  for (const Case& c : cases) {
    json pod = SharingPod(c.name, c.annotations);
    if (c.whole_gpu) pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1";
    auto created = Create(pod);
    ASSERT_FALSE(created.ok()) << c.name << " was admitted";
    EXPECT_EQ(created.error().http_code, 403) << c.name;
    EXPECT_NE(created.error().message.find(c.expected), std::string::npos)
        << c.name << ": " << created.error().message;
  }
}

TEST_F(WebhookIntegrationTest, PodsOfOtherSchedulersAndWholeGpuPodsAreUntouched) {
  auto other = Create(SharingPod("other", {{"gpu-fraction", "7"}}, "default-scheduler"));
  ASSERT_TRUE(other.ok()) << other.error().Describe();
  const json other_pod = json::parse(other->json);
  EXPECT_FALSE(other_pod["metadata"]["annotations"].contains("runai/shared-gpu-configmap"));
  EXPECT_FALSE(other_pod["spec"]["containers"][0].contains("env"));

  json whole = SharingPod("whole", json::object());
  whole["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1";
  auto created = Create(whole);
  ASSERT_TRUE(created.ok()) << created.error().Describe();
  EXPECT_FALSE(json::parse(created->json)["spec"]["containers"][0].contains("env"));
}

TEST_F(WebhookIntegrationTest, AnUpdateThatBreaksTheSharingAnnotationsIsRefused) {
  auto created = Create(SharingPod("later", {{"gpu-fraction", "0.25"}}));
  ASSERT_TRUE(created.ok()) << created.error().Describe();
  auto patched = admin_->Patch(Pods(), ns_, "later", kubeclient::PatchType::kMerge,
                               R"({"metadata":{"annotations":{"gpu-fraction":"3"}}})");
  ASSERT_FALSE(patched.ok());
  EXPECT_NE(patched.error().message.find("gpu-fraction"), std::string::npos)
      << patched.error().message;
  // A harmless change passes.
  auto labelled = admin_->Patch(Pods(), ns_, "later", kubeclient::PatchType::kMerge,
                                R"({"metadata":{"labels":{"team":"a"}}})");
  EXPECT_TRUE(labelled.ok()) << labelled.error().Describe();
}

}  // namespace
}  // namespace quotient::k8s_integration
