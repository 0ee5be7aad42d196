// The serving certificate: read, checked, and re-read when its files are renewed in place.
#include "webhook/tls_certificate.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

TEST(TlsCertificateTest, ARenewalInPlaceIsServedWithoutARestart) {
  const std::string folder = TempFolder();
  const std::string spare = TempFolder();
  const testing::TestPki old_pki = testing::MakeTestPki(folder, {"localhost"}, {"127.0.0.1"});
  WebhookServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.certificate_file = old_pki.certificate_file;
  options.key_file = old_pki.key_file;
  WebhookServer server(options);
  ASSERT_TRUE(server.Start().ok());
  ASSERT_TRUE(Trusted(server.Port(), old_pki.ca_file));

  // The renewal comes from another CA, so which certificate is served is unambiguous.
  const testing::TestPki new_pki =
      testing::MakeTestPki(spare, {"localhost"}, {"127.0.0.1"}, 1, "renewed CA");
  fs::copy_file(new_pki.certificate_file, old_pki.certificate_file,
                fs::copy_options::overwrite_existing);
  fs::copy_file(new_pki.key_file, old_pki.key_file, fs::copy_options::overwrite_existing);
  Touch(old_pki.certificate_file);
  Touch(old_pki.key_file);
  EXPECT_TRUE(Trusted(server.Port(), new_pki.ca_file));
  EXPECT_FALSE(Trusted(server.Port(), old_pki.ca_file));
  server.Stop();
  fs::remove_all(folder);
  fs::remove_all(spare);
}

TEST(TlsCertificateTest, AHalfWrittenRenewalKeepsThePreviousPair) {
  const std::string folder = TempFolder();
  const std::string spare = TempFolder();
  const testing::TestPki old_pki = testing::MakeTestPki(folder, {"localhost"}, {"127.0.0.1"});
  WebhookServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.certificate_file = old_pki.certificate_file;
  options.key_file = old_pki.key_file;
  WebhookServer server(options);
  ASSERT_TRUE(server.Start().ok());
  // Only the certificate is renewed so far: it does not match the key on disk.
  const testing::TestPki new_pki =
      testing::MakeTestPki(spare, {"localhost"}, {"127.0.0.1"}, 1, "renewed CA");
  fs::copy_file(new_pki.certificate_file, old_pki.certificate_file,
                fs::copy_options::overwrite_existing);
  Touch(old_pki.certificate_file);
  EXPECT_TRUE(Trusted(server.Port(), old_pki.ca_file));
  // The key arrives: the renewed pair is served.
  fs::copy_file(new_pki.key_file, old_pki.key_file, fs::copy_options::overwrite_existing);
  Touch(old_pki.key_file);
  EXPECT_TRUE(Trusted(server.Port(), new_pki.ca_file));
  server.Stop();
  fs::remove_all(folder);
  fs::remove_all(spare);
}

}  // namespace
}  // namespace quotient::webhook
