#include "kubeclient/credentials.h"

#include <gtest/gtest.h>

namespace quotient::kubeclient {
namespace {

using std::chrono::system_clock;

TEST(ExecCredentialTest, ReadsTokenCertificateAndExpiry) {
  Result<ExecCredential> c = ParseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t0k","expirationTimestamp":"2026-11-29T10:00:00Z"}})");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->token, "t0k");
  ASSERT_TRUE(c->expires.has_value());
  EXPECT_EQ(
      std::chrono::duration_cast<std::chrono::seconds>(c->expires->time_since_epoch()).count(),
      1795946400);  // 2026-11-29T10:00:00Z
  Result<ExecCredential> cert = ParseExecCredential(
      R"({"kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})");
  ASSERT_TRUE(cert.ok());
  EXPECT_EQ(cert->client_key_pem, "KEY");
  EXPECT_FALSE(cert->expires.has_value());
}

TEST(ExecCredentialTest, RejectsOutputWithoutACredential) {
  EXPECT_EQ(ParseExecCredential(R"({"kind":"ExecCredential","status":{}})").message(),
            "ExecCredential: status: neither token nor clientCertificateData");
  EXPECT_EQ(ParseExecCredential(R"({"kind":"Other","status":{"token":"x"}})").message(),
            "ExecCredential: kind: expected ExecCredential");
  EXPECT_EQ(
      ParseExecCredential(R"({"kind":"ExecCredential","status":{"clientCertificateData":"C"}})")
          .message(),
      "ExecCredential: status: clientCertificateData and clientKeyData go together");
  EXPECT_FALSE(ParseExecCredential("not json").ok());
}

struct Clock {
  system_clock::time_point now{std::chrono::seconds(1'000'000)};
};

TEST(CredentialSourceTest, TokenFileIsRereadAfterAMinute) {
  ConnectionConfig config;
  config.credentials.kind = Credentials::Kind::kTokenFile;
  config.credentials.token_file = "/sa/token";
  std::string contents = "first\n";
  int reads = 0;
  Clock clock;
  CredentialSource source(
      config,
      [&](const std::string& path) -> Result<std::string> {
        EXPECT_EQ(path, "/sa/token");
        ++reads;
        return contents;
      },
      nullptr, [&] { return clock.now; });
  EXPECT_EQ(source.Current()->bearer_token, "first");
  contents = "second";
  clock.now += std::chrono::seconds(59);
  EXPECT_EQ(source.Current()->bearer_token, "first");  // cached within the minute
  clock.now += std::chrono::seconds(1);
  EXPECT_EQ(source.Current()->bearer_token, "second");
  EXPECT_EQ(reads, 2);
}

TEST(CredentialSourceTest, ExecPluginOutputIsCachedUntilExpiryOrInvalidation) {
  ConnectionConfig config;
  config.server = "https://10.0.0.1:6443";
  config.credentials.kind = Credentials::Kind::kExec;
  ExecCredentialPlugin plugin;
  plugin.api_version = "client.authentication.k8s.io/v1";
  plugin.command = "get-token";
  plugin.provide_cluster_info = true;
  config.credentials.exec = plugin;
  int runs = 0;
  std::string last_info;
  Clock clock;
  CredentialSource source(
      config, nullptr,
      [&](const ExecCredentialPlugin& p, const std::string& info) -> Result<std::string> {
        EXPECT_EQ(p.command, "get-token");
        last_info = info;
        ++runs;
        return R"({"kind":"ExecCredential","status":{"token":"tok)" + std::to_string(runs) +
               R"(","expirationTimestamp":"1970-01-12T13:50:00Z"}})";  // 1,000,200 s
      },
      [&] { return clock.now; });
  EXPECT_EQ(source.Current()->bearer_token, "tok1");
  EXPECT_NE(last_info.find(R"("server":"https://10.0.0.1:6443")"), std::string::npos);
  EXPECT_NE(last_info.find(R"("interactive":false)"), std::string::npos);
  clock.now += std::chrono::seconds(100);
  EXPECT_EQ(source.Current()->bearer_token, "tok1");
  clock.now += std::chrono::seconds(100);  // at the expiry
  EXPECT_EQ(source.Current()->bearer_token, "tok2");
  source.Invalidate();  // after a 401
  EXPECT_EQ(source.Current()->bearer_token, "tok3");
}

TEST(CredentialSourceTest, FailingPluginIsATransportErrorNamingIt) {
  ConnectionConfig config;
  config.credentials.kind = Credentials::Kind::kExec;
  ExecCredentialPlugin plugin;
  plugin.command = "broken";
  config.credentials.exec = plugin;
  CredentialSource source(
      config, nullptr,
      [](const ExecCredentialPlugin&, const std::string&) -> Result<std::string> {
        return Result<std::string>::Error("exec plugin broken failed (status 1)");
      },
      [] { return system_clock::now(); });
  ApiResult<AuthMaterial> m = source.Current();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().reason, ApiReason::kTransport);
  EXPECT_EQ(m.error().message, "exec plugin broken failed (status 1)");
}

TEST(CredentialSourceTest, RealExecRunnerPassesExecInfoAndCapturesStdout) {
  ExecCredentialPlugin plugin;
  plugin.command = "sh";
  plugin.args = {"-c", "printf '%s|%s' \"$KUBERNETES_EXEC_INFO\" \"$EXTRA\""};
  plugin.env = {{"EXTRA", "yes"}};
  Result<std::string> out = RealExecRunner()(plugin, "{\"x\":1}");
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, "{\"x\":1}|yes");
  plugin.args = {"-c", "exit 3"};
  EXPECT_EQ(RealExecRunner()(plugin, "{}").message(), "exec plugin sh failed (status 3)");
}

}  // namespace
}  // namespace quotient::kubeclient
