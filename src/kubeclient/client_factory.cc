#include "kubeclient/client_factory.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "kubeclient/clock.h"
#include "kubeclient/token_bucket.h"

namespace quotient::kubeclient {

Result<ConnectionConfig> LoadConnectionConfig(const std::string& kubeconfig,
                                              const std::string& context) {
  if (!kubeconfig.empty()) return LoadKubeconfig({kubeconfig}, context, RealFileReader());
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    return LoadKubeconfig(SplitKubeconfigPaths(env), context, RealFileReader());
  }
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host != nullptr && port != nullptr) {
    return InClusterConfig({{"KUBERNETES_SERVICE_HOST", host}, {"KUBERNETES_SERVICE_PORT", port}},
                           "/var/run/secrets/kubernetes.io/serviceaccount", RealFileReader());
  }
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    std::string path = std::string(home) + "/.kube/config";
    if (std::filesystem::exists(path)) return LoadKubeconfig({path}, context, RealFileReader());
  }
  return Result<ConnectionConfig>::Error(
      "no Kubernetes configuration: pass --kubeconfig, set KUBECONFIG, run in a pod, or create "
      "~/.kube/config");
}

std::unique_ptr<Client> MakeClient(const ConnectionConfig& connection, const ClientConfig& config) {
  ClientOptions options;
  if (config.qps > 0) {
    auto bucket = std::make_shared<TokenBucket>(TokenRate::PerSecond(config.qps), config.burst,
                                                RealClock::Instance());
    options.wait_for_token = [bucket] { bucket->Wait(); };
  }
  return std::make_unique<Client>(MakeCurlTransport(connection, config.transport), options);
}

}  // namespace quotient::kubeclient
