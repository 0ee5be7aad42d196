// The webhook over real TLS: a client that trusts only the test CA talks to the server, as the
// API server does with the caBundle of the webhook configuration.
#include "webhook/webhook_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "webhook/test_certificates.h"

namespace quotient::webhook {
namespace {

using nlohmann::json;

std::string TempFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "webhook-test-XXXXXX").string();
  return mkdtemp(pattern.data());
}

std::string Review(const std::string& operation, const json& annotations,
                   const std::string& scheduler = "quotient") {
  json pod = {
      {"metadata", {{"name", "train-0"}, {"namespace", "ml"}, {"annotations", annotations}}},
      {"spec",
       {{"schedulerName", scheduler},
        {"containers", json::array({{{"name", "main"}, {"image", "trainer"}}})}}}};
  return json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request", {{"uid", "5f0e1d2c-aaaa"}, {"operation", operation}, {"object", pod}}}}
      .dump();
}

class WebhookServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = TempFolder();
    pki_ = testing::MakeTestPki(folder_, {"localhost"}, {"127.0.0.1"});
    WebhookServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.certificate_file = pki_.certificate_file;
    options.key_file = pki_.key_file;
    server_ = std::make_unique<WebhookServer>(options);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(folder_);
  }
  // A client that verifies the server against the test CA only.
  std::unique_ptr<httplib::SSLClient> Client() const {
    auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", server_->Port());
    client->set_ca_cert_path(pki_.ca_file.c_str());
    client->enable_server_certificate_verification(true);
    client->set_connection_timeout(5);
    return client;
  }
  json Post(const std::string& path, const std::string& body) {
    auto response = Client()->Post(path.c_str(), body, "application/json");
    EXPECT_TRUE(response) << httplib::to_string(response.error());
    if (!response) return nullptr;
    EXPECT_EQ(response->status, 200) << response->body;
    return json::parse(response->body, nullptr, false);
  }

  std::string folder_;
  testing::TestPki pki_;
  std::unique_ptr<WebhookServer> server_;
};

TEST_F(WebhookServerTest, MutatePatchesASharingPodOverVerifiedTls) {
  const json answer = Post("/mutate-pods", Review("CREATE", {{"gpu-fraction", "0.5"}}));
  ASSERT_TRUE(answer.is_object());
  EXPECT_EQ(answer["kind"], "AdmissionReview");
  EXPECT_EQ(answer["response"]["uid"], "5f0e1d2c-aaaa");
  EXPECT_EQ(answer["response"]["allowed"], true);
  EXPECT_EQ(answer["response"]["patchType"], "JSONPatch");
  EXPECT_FALSE(answer["response"]["patch"].get<std::string>().empty());
  EXPECT_EQ(server_->Stats().patched, 1);
}

TEST_F(WebhookServerTest, ValidateRefusesWithTheReasonAndNeverPatches) {
  const json refused = Post("/validate-pods", Review("UPDATE", {{"gpu-fraction", "1.5"}}));
  ASSERT_TRUE(refused.is_object());
  EXPECT_EQ(refused["response"]["allowed"], false);
  EXPECT_NE(refused["response"]["status"]["message"].get<std::string>().find("gpu-fraction"),
            std::string::npos);
  const json valid = Post("/validate-pods", Review("CREATE", {{"gpu-fraction", "0.5"}}));
  EXPECT_EQ(valid["response"]["allowed"], true);
  EXPECT_FALSE(valid["response"].contains("patch"));
  EXPECT_EQ(server_->Stats().refused, 1);
}

TEST_F(WebhookServerTest, OtherSchedulersPodsAreAllowedUntouched) {
  const json answer = Post("/mutate-pods", Review("CREATE", {{"gpu-fraction", "7"}}, "other"));
  EXPECT_EQ(answer["response"]["allowed"], true);
  EXPECT_FALSE(answer["response"].contains("patch"));
}

TEST_F(WebhookServerTest, ABodyThatIsNotAReviewGets400WithTheReason) {
  auto response = Client()->Post("/mutate-pods", "{\"kind\":\"Pod\"}", "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 400);
  EXPECT_NE(response->body.find("request: missing"), std::string::npos);
  EXPECT_EQ(server_->Stats().bad_requests, 1);
}

TEST_F(WebhookServerTest, ProbesAnswerAndUnknownPathsAre404) {
  auto client = Client();
  auto health = client->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto unknown = client->Get("/nothing");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST_F(WebhookServerTest, AClientTrustingAnotherCaIsRefusedTheHandshake) {
  const std::string other = TempFolder();
  const testing::TestPki stranger =
      testing::MakeTestPki(other, {"localhost"}, {"127.0.0.1"}, 1, "another CA");
  httplib::SSLClient client("127.0.0.1", server_->Port());
  client.set_ca_cert_path(stranger.ca_file.c_str());
  client.enable_server_certificate_verification(true);
  auto response = client.Get("/healthz");
  EXPECT_FALSE(response);
  std::filesystem::remove_all(other);
}

TEST_F(WebhookServerTest, ASecondStartAndAPortInUseAreErrors) {
  EXPECT_FALSE(server_->Start().ok());
  WebhookServerOptions options;
  options.listen_address = "127.0.0.1:" + std::to_string(server_->Port());
  options.certificate_file = pki_.certificate_file;
  options.key_file = pki_.key_file;
  WebhookServer second(options);
  const Status started = second.Start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find(options.listen_address), std::string::npos);
}

TEST(WebhookServerStartTest, MissingOrUnreadableCertificatesAreNamed) {
  WebhookServerOptions options;
  options.listen_address = "127.0.0.1:0";
  WebhookServer no_files(options);
  EXPECT_NE(no_files.Start().message().find("--tls-cert-file"), std::string::npos);
  options.certificate_file = "/nonexistent/tls.crt";
  options.key_file = "/nonexistent/tls.key";
  WebhookServer missing(options);
  EXPECT_NE(missing.Start().message().find("/nonexistent/tls.crt"), std::string::npos);
  options.listen_address = "localhost:x";
  WebhookServer bad_address(options);
  EXPECT_NE(bad_address.Start().message().find("--listen-address"), std::string::npos);
}

}  // namespace
}  // namespace quotient::webhook
