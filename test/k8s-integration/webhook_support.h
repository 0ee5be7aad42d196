// `quotient webhook` registered with the harness's API server for the tests: a test CA, the
// binary on a free port, and Mutating/Validating configurations that send the pods of the
// namespaces labelled quotient-webhook-test=<selector> to it (URL + caBundle, as the chart does
// with a Service). Removed again when the object goes.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"
#include "webhook/gpu_admission.h"
#include "webhook/test_certificates.h"

namespace quotient::k8s_integration {

inline kubeclient::Resource MutatingConfigurations() {
  return {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false};
}
inline kubeclient::Resource ValidatingConfigurations() {
  return {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false};
}

class RegisteredWebhook {
 public:
  // `name` names the configurations and the log; `scheduler` is the --scheduler-name it reviews.
  RegisteredWebhook(kubeclient::Client& admin, const std::string& name,
                    const std::string& scheduler, const std::string& selector)
      : admin_(admin), name_(name) {
    const std::string folder = Harness().data_dir() + "/webhook-pki-" + name;
    std::filesystem::create_directories(folder);
    pki_ = webhook::testing::MakeTestPki(folder, {"localhost"}, {"127.0.0.1"});
    process_ =
        std::make_unique<WebhookProcess>(name, pki_.certificate_file, pki_.key_file,
                                         std::vector<std::string>{"--scheduler-name", scheduler});
    const int port = process_->Port();
    EXPECT_GT(port, 0) << "the webhook never said its port";
    const std::string base = "https://127.0.0.1:" + std::to_string(port);
    const nlohmann::json mutating = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "MutatingWebhookConfiguration"},
        {"metadata", {{"name", name}}},
        {"webhooks",
         {Entry("gpu-sharing.mutate.quotient.dev", base + "/mutate-pods", selector, {"CREATE"})}}};
    const nlohmann::json validating = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", name}}},
        {"webhooks",
         {Entry("gpu-sharing.validate.quotient.dev", base + "/validate-pods", selector,
                {"CREATE", "UPDATE"})}}};
    EXPECT_TRUE(admin_.Create(MutatingConfigurations(), "", mutating.dump()).ok());
    EXPECT_TRUE(admin_.Create(ValidatingConfigurations(), "", validating.dump()).ok());
  }
  ~RegisteredWebhook() {
    EXPECT_TRUE(admin_.Delete(MutatingConfigurations(), "", name_).ok());
    EXPECT_TRUE(admin_.Delete(ValidatingConfigurations(), "", name_).ok());
  }
  RegisteredWebhook(const RegisteredWebhook&) = delete;
  RegisteredWebhook& operator=(const RegisteredWebhook&) = delete;

  // Labels `ns` for the webhook and waits until the API server calls it there: a pod the
  // webhook refuses (`scheduler`'s, with a fraction of 9) is refused.
  bool Cover(const std::string& ns, const std::string& scheduler, const std::string& selector) {
    if (!admin_
             .Patch(kubeclient::resources::Namespaces(), "", ns, kubeclient::PatchType::kMerge,
                    R"({"metadata":{"labels":{"quotient-webhook-test":")" + selector + R"("}}})")
             .ok()) {
      return false;
    }
    int n = 0;
    return WaitFor(
        [&] {
          const std::string probe = "webhook-probe-" + std::to_string(n++);
          nlohmann::json pod = nlohmann::json::parse(PodJson(probe));
          pod["spec"]["schedulerName"] = scheduler;
          pod["metadata"]["annotations"]["gpu-fraction"] = "9";
          auto created = admin_.Create(kubeclient::resources::Pods(), ns, pod.dump());
          if (created.ok()) {
            EXPECT_TRUE(admin_.Delete(kubeclient::resources::Pods(), ns, probe).ok());
            return false;
          }
          return created.error().message.find("gpu-fraction") != std::string::npos;
        },
        std::chrono::seconds(30));
  }

 private:
  nlohmann::json Entry(const std::string& name, const std::string& url, const std::string& selector,
                       const nlohmann::json& operations) const {
    return {{"name", name},
            {"clientConfig", {{"url", url}, {"caBundle", webhook::Base64(pki_.ca_pem)}}},
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

  kubeclient::Client& admin_;
  std::string name_;
  webhook::testing::TestPki pki_;
  std::unique_ptr<WebhookProcess> process_;
};

}  // namespace quotient::k8s_integration
