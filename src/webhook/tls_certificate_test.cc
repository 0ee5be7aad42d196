// The serving certificate: read, checked, and re-read when its files are renewed in place.
#include "webhook/tls_certificate.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "webhook/test_certificates.h"
#include "webhook/webhook_server.h"

namespace quotient::webhook {
namespace {

namespace fs = std::filesystem;

std::string TempFolder() {
  std::string pattern = (fs::temp_directory_path() / "tls-test-XXXXXX").string();
  return mkdtemp(pattern.data());
}

// Whether a client trusting `ca_file` completes a request to the server on `port`.
bool Trusted(int port, const std::string& ca_file) {
  httplib::SSLClient client("127.0.0.1", port);
  client.set_ca_cert_path(ca_file.c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(5);
  auto response = client.Get("/healthz");
  return response && response->status == 200;
}

// A file's modification time moved forward, as a renewal written a moment later has.
void Touch(const std::string& path) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(2));
}

TEST(TlsCertificateTest, AMatchingPairLoadsAndAForeignKeyIsRefused) {
  const std::string a = TempFolder();
  const std::string b = TempFolder();
  const testing::TestPki first = testing::MakeTestPki(a, {"localhost"}, {});
  const testing::TestPki second = testing::MakeTestPki(b, {"localhost"}, {});
  TlsCertificate good(first.certificate_file, first.key_file);
  EXPECT_TRUE(good.Load().ok());
  EXPECT_EQ(good.loads(), 1);
  TlsCertificate mixed(first.certificate_file, second.key_file);
  const Status refused = mixed.Load();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("not the key of the certificate"), std::string::npos);
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(TlsCertificateTest, FilesThatAreNotPemAreNamed) {
  const std::string folder = TempFolder();
  const std::string junk = folder + "/junk.pem";
  std::ofstream(junk) << "not a certificate\n";
  TlsCertificate certificate(junk, junk);
  const Status loaded = certificate.Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.message().find(junk + ": no PEM certificate"), std::string::npos);
  fs::remove_all(folder);
}

// A server on a first certificate, and a renewal from another CA (so which pair is served is
// unambiguous) waiting to be copied over it, file by file.
class RenewalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_pki_ = testing::MakeTestPki(folder_, {"localhost"}, {"127.0.0.1"});
    new_pki_ = testing::MakeTestPki(spare_, {"localhost"}, {"127.0.0.1"}, 1, "renewed CA");
    WebhookServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.certificate_file = old_pki_.certificate_file;
    options.key_file = old_pki_.key_file;
    server_ = std::make_unique<WebhookServer>(options);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(folder_);
    fs::remove_all(spare_);
  }
  // Renews one file in place, a moment later than it was written.
  void Renew(const std::string& from, const std::string& to) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    Touch(to);
  }
  const std::string folder_ = TempFolder();
  const std::string spare_ = TempFolder();
  testing::TestPki old_pki_;
  testing::TestPki new_pki_;
  std::unique_ptr<WebhookServer> server_;
};

TEST_F(RenewalTest, ARenewalInPlaceIsServedWithoutARestart) {
  ASSERT_TRUE(Trusted(server_->Port(), old_pki_.ca_file));
  Renew(new_pki_.certificate_file, old_pki_.certificate_file);
  Renew(new_pki_.key_file, old_pki_.key_file);
  EXPECT_TRUE(Trusted(server_->Port(), new_pki_.ca_file));
  EXPECT_FALSE(Trusted(server_->Port(), old_pki_.ca_file));
}

TEST_F(RenewalTest, AHalfWrittenRenewalKeepsThePreviousPair) {
  // Only the certificate is renewed so far: it does not match the key on disk.
  Renew(new_pki_.certificate_file, old_pki_.certificate_file);
  EXPECT_TRUE(Trusted(server_->Port(), old_pki_.ca_file));
  // The key arrives: the renewed pair is served.
  Renew(new_pki_.key_file, old_pki_.key_file);
  EXPECT_TRUE(Trusted(server_->Port(), new_pki_.ca_file));
}

}  // namespace
}  // namespace quotient::webhook
