#include "kubeclient/kubeconfig.h"

#include <gtest/gtest.h>

namespace quotient::kubeclient {
namespace {

// An in-memory file system for the reader.
FileReader Files(std::map<std::string, std::string> files) {
  return [files](const std::string& path) -> Result<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return Result<std::string>::Error(path + ": no such file");
    return it->second;
  };
}

// "hello" and "-----CA-----" in base64.
constexpr const char* kHello64 = "aGVsbG8=";
constexpr const char* kCa64 = "LS0tLS1DQS0tLS0t";

std::string Config(const std::string& user_body, const std::string& cluster_extra = "") {
  return R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443
)" + cluster_extra +
         R"(contexts:
- name: dev
  context: {cluster: c1, user: u1, namespace: team-a}
users:
- name: u1
  user:
)" + user_body;
}

TEST(Kubeconfig, BearerTokenAndClusterCaData) {
  const FileReader read = Files(
      {{"/k/config", Config("    token: abc\n",
                            std::string("    certificate-authority-data: ") + kCa64 + "\n")}});
  Result<ConnectionConfig> c = LoadKubeconfig({"/k/config"}, "", read);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "-----CA-----");
  EXPECT_EQ(c->namespace_name, "team-a");
  EXPECT_EQ(c->context, "dev");
  EXPECT_EQ(c->credentials.kind, Credentials::Kind::kToken);
  EXPECT_EQ(c->credentials.token, "abc");
}

TEST(Kubeconfig, RelativeFilesResolveAgainstTheKubeconfigFolder) {
  const FileReader read = Files({
      {"/k/config", Config("    client-certificate: certs/client.crt\n"
                           "    client-key: /abs/client.key\n",
                           "    certificate-authority: ca.crt\n")},
      {"/k/ca.crt", "CA-PEM"},
      {"/k/certs/client.crt", "CERT-PEM"},
      {"/abs/client.key", "KEY-PEM"},
  });
  Result<ConnectionConfig> c = LoadKubeconfig({"/k/config"}, "", read);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->ca_pem, "CA-PEM");
  EXPECT_EQ(c->credentials.kind, Credentials::Kind::kClientCertificate);
  EXPECT_EQ(c->credentials.client_cert_pem, "CERT-PEM");
  EXPECT_EQ(c->credentials.client_key_pem, "KEY-PEM");
}

TEST(Kubeconfig, ClientCertificateDataAndInsecureSkipVerify) {
  const FileReader read =
      Files({{"/k/config", Config(std::string("    client-certificate-data: ") + kHello64 +
                                      "\n    client-key-data: " + kCa64 + "\n",
                                  "    insecure-skip-tls-verify: true\n"
                                  "    tls-server-name: api.internal\n")}});
  Result<ConnectionConfig> c = LoadKubeconfig({"/k/config"}, "", read);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->tls_server_name, "api.internal");
  EXPECT_EQ(c->credentials.client_cert_pem, "hello");
  EXPECT_EQ(c->credentials.client_key_pem, "-----CA-----");
}

TEST(Kubeconfig, TokenFileBasicAuthAndExecPlugin) {
  Result<ConnectionConfig> tf =
      LoadKubeconfig({"/k/config"}, "", Files({{"/k/config", Config("    tokenFile: tok\n")}}));
  ASSERT_TRUE(tf.ok()) << tf.message();
  EXPECT_EQ(tf->credentials.kind, Credentials::Kind::kTokenFile);
  EXPECT_EQ(tf->credentials.token_file, "/k/tok");

  Result<ConnectionConfig> basic =
      LoadKubeconfig({"/k/config"}, "",
                     Files({{"/k/config", Config("    username: alice\n    password: s3cret\n")}}));
  ASSERT_TRUE(basic.ok()) << basic.message();
  EXPECT_EQ(basic->credentials.kind, Credentials::Kind::kBasic);
  EXPECT_EQ(basic->credentials.username, "alice");
  EXPECT_EQ(basic->credentials.password, "s3cret");

  Result<ConnectionConfig> exec = LoadKubeconfig(
      {"/k/config"}, "",
      Files({{"/k/config", Config("    exec:\n"
                                  "      apiVersion: client.authentication.k8s.io/v1\n"
                                  "      command: gke-gcloud-auth-plugin\n"
                                  "      args: [--verbose]\n"
                                  "      env: [{name: A, value: b}]\n"
                                  "      interactiveMode: Never\n"
                                  "      provideClusterInfo: true\n")}}));
  ASSERT_TRUE(exec.ok()) << exec.message();
  EXPECT_EQ(exec->credentials.kind, Credentials::Kind::kExec);
  ASSERT_TRUE(exec->credentials.exec.has_value());
  EXPECT_EQ(exec->credentials.exec->command, "gke-gcloud-auth-plugin");
  EXPECT_EQ(exec->credentials.exec->args, std::vector<std::string>{"--verbose"});
  EXPECT_EQ(exec->credentials.exec->env.front().first, "A");
  EXPECT_TRUE(exec->credentials.exec->provide_cluster_info);
  EXPECT_EQ(exec->credentials.exec->interactive_mode, "Never");

  // A command with a path separator is relative to the kubeconfig's folder; a bare name is not.
  Result<ConnectionConfig> relative = LoadKubeconfig(
      {"/k/config"}, "",
      Files({{"/k/config", Config("    exec:\n"
                                  "      apiVersion: client.authentication.k8s.io/v1\n"
                                  "      command: ./bin/get-token\n")}}));
  ASSERT_TRUE(relative.ok()) << relative.message();
  EXPECT_EQ(relative->credentials.exec->command, "/k/./bin/get-token");
}

TEST(Kubeconfig, SeveralFilesMergeFirstWins) {
  const std::string second = R"(current-context: other
clusters:
- name: c1
  cluster: {server: https://ignored:1}
- name: c2
  cluster: {server: https://second:6443}
contexts:
- name: other
  context: {cluster: c2, user: u1}
)";
  const FileReader read = Files({{"/a", Config("    token: t\n")}, {"/b", second}});
  Result<ConnectionConfig> current = LoadKubeconfig({"/a", "/b"}, "", read);
  ASSERT_TRUE(current.ok()) << current.message();
  EXPECT_EQ(current->server, "https://127.0.0.1:6443");  // current-context from the first file
  Result<ConnectionConfig> other = LoadKubeconfig({"/a", "/b"}, "other", read);
  ASSERT_TRUE(other.ok()) << other.message();
  EXPECT_EQ(other->server, "https://second:6443");
  EXPECT_EQ(other->credentials.token, "t");  // user u1 from the first file
  EXPECT_EQ(other->namespace_name, "default");
}

TEST(Kubeconfig, ErrorsNameTheFileEntryAndField) {
  const auto error = [](const std::string& text, const std::string& context = "") {
    Result<ConnectionConfig> c =
        LoadKubeconfig({"/k/config"}, context, Files({{"/k/config", text}}));
    return c.ok() ? std::string("loaded") : c.message();
  };
  EXPECT_EQ(error(Config("    token: t\n"), "missing"), "kubeconfig: context missing not found");
  EXPECT_NE(error(Config("    client-certificate-data: aGVsbG8=\n"))
                .find("a client certificate needs both the certificate and the key"),
            std::string::npos);
  EXPECT_NE(error(Config("    client-key-data: '@@@@'\n")).find("client-key-data: not base64"),
            std::string::npos);
  EXPECT_NE(
      error(Config("    token: [1, 2]\n")).find("/k/config: user u1: token: expected a string"),
      std::string::npos);
  EXPECT_NE(error("clusters: {}\n").find("clusters: expected a list"), std::string::npos);
  EXPECT_NE(error("current-context: x\n").find("context x not found"), std::string::npos);
  EXPECT_NE(error(Config("    exec: {args: [a]}\n")).find("exec: command: required"),
            std::string::npos);
  Result<ConnectionConfig> missing = LoadKubeconfig({"/nope"}, "", Files({}));
  EXPECT_EQ(missing.message(), "/nope: no such file");
}

TEST(InClusterConfig, ServiceHostTokenFileCaAndNamespace) {
  const FileReader read =
      Files({{"/sa/ca.crt", "CA"}, {"/sa/token", "tok"}, {"/sa/namespace", "kai-scheduler\n"}});
  Result<ConnectionConfig> c = InClusterConfig(
      {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, "/sa", read);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->ca_pem, "CA");
  EXPECT_EQ(c->credentials.kind, Credentials::Kind::kTokenFile);
  EXPECT_EQ(c->credentials.token_file, "/sa/token");
  EXPECT_EQ(c->namespace_name, "kai-scheduler");
  Result<ConnectionConfig> v6 = InClusterConfig(
      {{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, "/sa", read);
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");
  EXPECT_FALSE(InClusterConfig({}, "/sa", read).ok());
  EXPECT_FALSE(InClusterConfig({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}},
                               "/missing", read)
                   .ok());
}

TEST(Helpers, SplitPathsAndBase64) {
  EXPECT_EQ(SplitKubeconfigPaths("/a::/b:"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(DecodeBase64("aGVsbG8"), "hello");  // padding optional
  EXPECT_EQ(DecodeBase64("aGVs\nbG8="), "hello");
  EXPECT_EQ(DecodeBase64(""), "");
  EXPECT_FALSE(DecodeBase64("@@@@").has_value());
}

}  // namespace
}  // namespace quotient::kubeclient
