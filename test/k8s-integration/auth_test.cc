// Authentication and authorization against the real API server: RBAC denials come back as
// Forbidden; a grant takes effect; the exec credential plugin and the in-cluster configuration
// authenticate as the identity they carry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cluster.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::ApiReason;
using kubeclient::resources::Pods;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

TEST(AuthTest, RbacDenialIsForbiddenAndAGrantTakesEffect) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "rbac");
  auto scheduler = SchedulerClient();
  auto denied = scheduler->List(Pods(), ns, {});
  ASSERT_TRUE(denied.Is(ApiReason::kForbidden))
      << (denied.ok() ? "allowed" : denied.error().Describe());
  EXPECT_NE(denied.error().message.find("system:serviceaccount:quotient:scheduler"),
            std::string::npos)
      << denied.error().message;

  nlohmann::json role = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata", {{"name", "read-pods"}}},
      {"rules",
       {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list", "watch"}}}}}};
  nlohmann::json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "scheduler-reads-pods"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "read-pods"}}},
      {"subjects",
       {{{"kind", "ServiceAccount"}, {"name", "scheduler"}, {"namespace", "quotient"}}}}};
  ASSERT_TRUE(
      admin->Create({"rbac.authorization.k8s.io", "v1", "roles", true}, ns, role.dump()).ok());
  ASSERT_TRUE(
      admin->Create({"rbac.authorization.k8s.io", "v1", "rolebindings", true}, ns, binding.dump())
          .ok());
  EXPECT_TRUE(
      WaitFor([&] { return scheduler->List(Pods(), ns, {}).ok(); }, std::chrono::seconds(10)));
  // Reading is granted, writing is not.
  EXPECT_TRUE(scheduler->Create(Pods(), ns, PodJson("x")).Is(ApiReason::kForbidden));
}

std::string ReadToken(const std::string& kubeconfig) {
  Result<kubeclient::ConnectionConfig> c = kubeclient::LoadConnectionConfig(kubeconfig, "");
  return c.ok() ? c->credentials.token : "";
}

TEST(AuthTest, ExecPluginCredentialsAuthenticateAsTheirUser) {
  std::string dir = Harness().data_dir() + "/exec-test";
  std::filesystem::create_directories(dir);
  std::string token = ReadToken(Harness().scheduler_kubeconfig());
  ASSERT_FALSE(token.empty());
  WriteFile(dir + "/plugin.sh",
            "#!/bin/sh\n"
            "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 7;; esac\n"
            "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
            "\"status\":{\"token\":\"" +
                token + "\"}}'\n");
  std::filesystem::permissions(dir + "/plugin.sh", std::filesystem::perms::owner_all);
  kubeclient::ConnectionConfig admin = AdminConnection();
  std::string ca_file = dir + "/ca.crt";
  WriteFile(ca_file, admin.ca_pem);
  WriteFile(dir + "/kubeconfig",
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
            "clusters: [{name: h, cluster: {server: '" +
                admin.server +
                "', certificate-authority: ca.crt}}]\n"
                "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
                "command: ./plugin.sh, "
                "interactiveMode: Never}}}]\n"
                "contexts: [{name: c, context: {cluster: h, user: u}}]\n");
  Result<kubeclient::ConnectionConfig> config =
      kubeclient::LoadConnectionConfig(dir + "/kubeconfig", "");
  ASSERT_TRUE(config.ok()) << config.message();
  // "./plugin.sh" resolves against the kubeconfig's folder, wherever the test runs.
  auto client = kubeclient::MakeClient(*config);
  auto r = client->List(Pods(), "kube-system", {});
  // Authenticated (not 401) as the scheduler, which may not list kube-system's pods.
  ASSERT_TRUE(r.Is(ApiReason::kForbidden)) << (r.ok() ? "allowed" : r.error().Describe());
  EXPECT_NE(r.error().message.find("system:serviceaccount:quotient:scheduler"), std::string::npos);
}

TEST(AuthTest, InClusterConfigurationReadsTheServiceAccountFiles) {
  std::string dir = Harness().data_dir() + "/serviceaccount";
  std::filesystem::create_directories(dir);
  WriteFile(dir + "/token", ReadToken(Harness().scheduler_kubeconfig()) + "\n");
  WriteFile(dir + "/ca.crt", AdminConnection().ca_pem);
  WriteFile(dir + "/namespace", "quotient\n");
  Result<kubeclient::ConnectionConfig> config =
      kubeclient::InClusterConfig({{"KUBERNETES_SERVICE_HOST", "127.0.0.1"},
                                   {"KUBERNETES_SERVICE_PORT", std::to_string(Harness().port())}},
                                  dir, kubeclient::RealFileReader());
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->namespace_name, "quotient");
  auto client = kubeclient::MakeClient(*config);
  auto r = client->List(Pods(), "default", {});
  ASSERT_TRUE(r.Is(ApiReason::kForbidden)) << (r.ok() ? "allowed" : r.error().Describe());
  EXPECT_NE(r.error().message.find("system:serviceaccount:quotient:scheduler"), std::string::npos);
}

TEST(AuthTest, WrongCertificateAuthorityFailsTlsVerification) {
  kubeclient::ConnectionConfig config = AdminConnection();
  config.ca_pem.clear();  // system trust store: does not know the harness's CA
  auto r = kubeclient::MakeClient(config)->List(Pods(), "default", {});
  ASSERT_TRUE(r.Is(ApiReason::kTransport));
  config.insecure_skip_tls_verify = true;  // explicitly off: then it connects
  EXPECT_TRUE(kubeclient::MakeClient(config)->List(Pods(), "default", {}).ok());
}

}  // namespace
}  // namespace quotient::k8s_integration
