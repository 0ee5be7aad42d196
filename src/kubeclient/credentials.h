// What the transport puts on each request to authenticate: a bearer token (static, re-read from
// a token file at most once a minute — projected service-account tokens rotate — or obtained
// from an exec credential plugin and cached until it expires), HTTP basic credentials, or a
// client certificate (which may also come from an exec plugin).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "kubeclient/api_error.h"
#include "kubeclient/kubeconfig.h"

namespace quotient::kubeclient {

struct AuthMaterial {
  std::string bearer_token;     // empty: none
  std::string client_cert_pem;  // empty: none
  std::string client_key_pem;
  std::string basic_user;  // empty: none
  std::string basic_password;
};

// The output of an exec credential plugin (client.authentication.k8s.io ExecCredential).
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expires;  // none: valid until a 401
};

// Parses an ExecCredential document; the error names the field.
Result<ExecCredential> ParseExecCredential(std::string_view json);

// Runs an exec plugin: the command with its args, its env added to ours and
// KUBERNETES_EXEC_INFO set; returns its stdout, or why it failed (exit code, stderr).
using ExecRunner = std::function<Result<std::string>(const ExecCredentialPlugin& plugin,
                                                     const std::string& exec_info)>;
ExecRunner RealExecRunner();

class CredentialSource {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;
  CredentialSource(ConnectionConfig config, FileReader read, ExecRunner exec, WallClock now);

  // The material for the next request; an error when a token file cannot be read or a plugin
  // fails (the request is then not sent).
  ApiResult<AuthMaterial> Current();
  // Called after a 401: drops cached plugin output and re-reads the token file next time.
  void Invalidate();

 private:
  ApiResult<AuthMaterial> FromExec();

  ConnectionConfig config_;
  FileReader read_;
  ExecRunner exec_;
  WallClock now_;
  std::mutex mu_;
  std::string file_token_;
  std::optional<std::chrono::system_clock::time_point> file_token_read_at_;
  std::optional<ExecCredential> exec_cached_;
};

}  // namespace quotient::kubeclient
