// Where the API server is and how to authenticate to it: kubeconfig files (client-go's format)
// and the in-cluster service-account configuration, resolved into one ConnectionConfig.
//
// Kubeconfig: `clusters`, `users`, `contexts`, `current-context`; per cluster `server`,
// `certificate-authority` (file) or `certificate-authority-data` (base64 PEM),
// `insecure-skip-tls-verify`, `tls-server-name`, `proxy-url`; per user `token`, `tokenFile`,
// `client-certificate` / `client-certificate-data`, `client-key` / `client-key-data`,
// `username` / `password`, `exec` (credential plugin: command, args, env, apiVersion,
// interactiveMode, provideClusterInfo). Relative file paths are relative to the kubeconfig file's
// folder, as in client-go. Several files (KUBECONFIG=a:b) merge: the first file that names an
// entry or sets current-context wins.
//
// File reading goes through a FileReader so tests can supply contents.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace quotient::kubeclient {

// The text of a file, or why not.
using FileReader = std::function<Result<std::string>(const std::string& path)>;
FileReader RealFileReader();

struct ExecCredentialPlugin {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode;  // Never, IfAvailable, Always
  bool provide_cluster_info = false;
};

struct Credentials {
  enum class Kind { kNone, kToken, kTokenFile, kClientCertificate, kBasic, kExec };
  Kind kind = Kind::kNone;
  std::string token;
  std::string token_file;       // re-read on use (rotated service-account tokens)
  std::string client_cert_pem;  // from client-certificate-data or the file
  std::string client_key_pem;
  std::string username;
  std::string password;
  std::optional<ExecCredentialPlugin> exec;
};

struct ConnectionConfig {
  std::string server;  // https://host:port
  std::string ca_pem;  // empty = system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  std::string namespace_name = "default";
  Credentials credentials;
  std::string context;  // the kubeconfig context used, empty in-cluster
};

// Reads the kubeconfig files (in order) and resolves `context` (empty = current-context).
// Errors name the file, the entry and the field.
Result<ConnectionConfig> LoadKubeconfig(const std::vector<std::string>& paths,
                                        const std::string& context, const FileReader& read);

// Splits KUBECONFIG ("a:b"), dropping empty entries.
std::vector<std::string> SplitKubeconfigPaths(const std::string& value);

// In-cluster: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT from `env`, the service
// account's token file (re-read by the transport), CA and namespace under `account_dir`
// (normally /var/run/secrets/kubernetes.io/serviceaccount).
Result<ConnectionConfig> InClusterConfig(const std::map<std::string, std::string>& env,
                                         const std::string& account_dir, const FileReader& read);

// Base64 (standard alphabet, padding optional, whitespace ignored) to bytes; nullopt if invalid.
std::optional<std::string> DecodeBase64(const std::string& text);

}  // namespace quotient::kubeclient
