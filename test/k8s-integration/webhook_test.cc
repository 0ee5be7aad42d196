// `quotient webhook` called by the real API server: a Mutating- and a
// ValidatingWebhookConfiguration point at the binary (TLS, caBundle from a test CA), limited to
// this test's namespaces, and pods are created and updated through the API as users do.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"
#include "webhook/test_certificates.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::Resource;
using kubeclient::resources::Pods;
using nlohmann::json;

Resource MutatingConfigurations() {
  return {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false};
}
Resource ValidatingConfigurations() {
  return {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false};
}

std::string Base64(const std::string& text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// One webhook entry as the chart writes it, but with a URL (the binary runs outside the
// cluster) and only the namespaces labelled for `selector`.
json WebhookEntry(const std::string& name, const std::string& url, const std::string& ca,
                  const std::string& selector, const json& operations) {
  return {{"name", name},
          {"clientConfig", {{"url", url}, {"caBundle", Base64(ca)}}},
          {"rules",
           {{{"apiGroups", {""}},
             {"apiVersions", {"v1"}},
             {"operations", operations},
             {"resources", {"pods"}},
             {"scope", "Namespaced"}}}},
          {"namespaceSelector", {{"matchLabels", {{"quotient-webhook-test", selector}}}}},
          {"sideEffects", "None"},
          {"admissionReviewVersions", {"v1"}},
          {"timeoutSeconds", 5},
          {"failurePolicy", "Fail"}};
}

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
    folder_ = Harness().data_dir() + "/webhook-pki";
    std::filesystem::create_directories(folder_);
    pki_ = webhook::testing::MakeTestPki(folder_, {"localhost"}, {"127.0.0.1"});
    webhook_ = new WebhookProcess("it", pki_.certificate_file, pki_.key_file,
                                  {"--scheduler-name", "quotient-webhook"});
    const int port = webhook_->Port();
    ASSERT_GT(port, 0) << "the webhook never said its port";
    const std::string base = "https://127.0.0.1:" + std::to_string(port);
    json mutating = {{"apiVersion", "admissionregistration.k8s.io/v1"},
                     {"kind", "MutatingWebhookConfiguration"},
                     {"metadata", {{"name", "quotient-it-webhook"}}},
                     {"webhooks",
                      {WebhookEntry("gpu-sharing.mutate.quotient.dev", base + "/mutate-pods",
                                    pki_.ca_pem, "on", {"CREATE"})}}};
    json validating = {{"apiVersion", "admissionregistration.k8s.io/v1"},
                       {"kind", "ValidatingWebhookConfiguration"},
                       {"metadata", {{"name", "quotient-it-webhook"}}},
                       {"webhooks",
                        {WebhookEntry("gpu-sharing.validate.quotient.dev", base + "/validate-pods",
                                      pki_.ca_pem, "on", {"CREATE", "UPDATE"})}}};
    ASSERT_TRUE(admin_->Create(MutatingConfigurations(), "", mutating.dump()).ok());
    ASSERT_TRUE(admin_->Create(ValidatingConfigurations(), "", validating.dump()).ok());
    ns_ = CreateNamespace(*admin_, "webhook");
    ASSERT_TRUE(admin_
                    ->Patch(kubeclient::resources::Namespaces(), "", ns_,
                            kubeclient::PatchType::kMerge,
                            R"({"metadata":{"labels":{"quotient-webhook-test":"on"}}})")
                    .ok());
    // The API server picks the configurations up from its own informer: wait until a pod the
    // webhook refuses is refused.
    int n = 0;
    const bool active = WaitFor(
        [&] {
          const std::string name = "probe-" + std::to_string(n++);
          auto created =
              admin_->Create(Pods(), ns_, SharingPod(name, {{"gpu-fraction", "9"}}).dump());
          if (created.ok()) {
            EXPECT_TRUE(admin_->Delete(Pods(), ns_, name).ok());
            return false;
          }
          return created.error().message.find("gpu-fraction") != std::string::npos;
        },
        std::chrono::seconds(30));
    ASSERT_TRUE(active) << "the API server never called the webhook";
  }
  static void TearDownTestSuite() {
    EXPECT_TRUE(admin_->Delete(MutatingConfigurations(), "", "quotient-it-webhook").ok());
    EXPECT_TRUE(admin_->Delete(ValidatingConfigurations(), "", "quotient-it-webhook").ok());
    EXPECT_TRUE(admin_->Delete(kubeclient::resources::Namespaces(), "", ns_).ok());
    delete webhook_;
    delete admin_;
  }

  // Creates the pod; the API server's answer.
  static kubeclient::ApiResult<kubeclient::RawObject> Create(const json& pod) {
    return admin_->Create(Pods(), ns_, pod.dump());
  }

  static inline kubeclient::Client* admin_ = nullptr;
  static inline WebhookProcess* webhook_ = nullptr;
  static inline std::string folder_;
  static inline std::string ns_;
  static inline webhook::testing::TestPki pki_;
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
