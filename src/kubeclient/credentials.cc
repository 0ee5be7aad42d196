#include "kubeclient/credentials.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/time_text.h"
#include "kube/value.h"

extern char** environ;

namespace quotient::kubeclient {
namespace {

// client-go re-reads BearerTokenFile once a minute (transport/token_source.go).
constexpr std::chrono::minutes kTokenFileRefresh{1};

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// Reads everything from `fd` until EOF.
std::string ReadAll(int fd) {
  std::string out;
  std::array<char, 4096> buffer{};
  for (;;) {
    ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer.data(), static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

Result<ExecCredential> ParseExecCredential(std::string_view json) {
  using R = Result<ExecCredential>;
  Result<kube::Value> doc = kube::ParseJson(json);
  if (!doc.ok() || !doc->is_mapping()) return R::Error("ExecCredential: not a JSON object");
  const kube::Value* kind = doc->Find("kind");
  if (kind == nullptr || kind->text() != "ExecCredential") {
    return R::Error("ExecCredential: kind: expected ExecCredential");
  }
  const kube::Value* status = doc->Find("status");
  if (status == nullptr) return R::Error("ExecCredential: status: missing");
  if (!status->is_mapping()) return R::Error("ExecCredential: status: expected an object");
  ExecCredential credential;
  for (size_t i = 0; i < status->size(); ++i) {
    const std::string& key = status->keys()[i];
    const kube::Value& value = status->items()[i];
    if (value.type() != kube::Value::Type::kString) {
      return R::Error("ExecCredential: status." + key + ": expected a string");
    }
    if (key == "token") {
      credential.token = value.text();
    } else if (key == "clientCertificateData") {
      credential.client_cert_pem = value.text();
    } else if (key == "clientKeyData") {
      credential.client_key_pem = value.text();
    } else if (key == "expirationTimestamp") {
      Result<core::Time> t = core::ParseRfc3339(value.text());
      if (!t.ok()) return R::Error("ExecCredential: status.expirationTimestamp: " + t.message());
      credential.expires = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(t->time_since_epoch()));
    }
  }
  if (credential.token.empty() && credential.client_cert_pem.empty()) {
    return R::Error("ExecCredential: status: neither token nor clientCertificateData");
  }
  if (credential.client_cert_pem.empty() != credential.client_key_pem.empty()) {
    return R::Error("ExecCredential: status: clientCertificateData and clientKeyData go together");
  }
  return credential;
}

ExecRunner RealExecRunner() {
  return
      [](const ExecCredentialPlugin& plugin, const std::string& exec_info) -> Result<std::string> {
        using R = Result<std::string>;
        std::array<int, 2> out{};
        if (pipe2(out.data(), O_CLOEXEC) != 0)
          return R::Error(std::string("pipe: ") + strerror(errno));
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        std::vector<std::string> env_text;
        for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
        for (const auto& [name, value] : plugin.env) env_text.push_back(name + "=" + value);
        env_text.push_back("KUBERNETES_EXEC_INFO=" + exec_info);
        std::vector<char*> envp;
        for (std::string& e : env_text) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::vector<std::string> arg_text{plugin.command};
        arg_text.insert(arg_text.end(), plugin.args.begin(), plugin.args.end());
        std::vector<char*> argv;
        for (std::string& a : arg_text) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        int rc =
            posix_spawnp(&pid, plugin.command.c_str(), &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        close(out[1]);
        if (rc != 0) {
          close(out[0]);
          return R::Error("exec plugin " + plugin.command + ": " + strerror(rc));
        }
        std::string stdout_text = ReadAll(out[0]);
        close(out[0]);
        int wstatus = 0;
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
          return R::Error("exec plugin " + plugin.command + " failed (status " +
                          std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) + ")");
        }
        return stdout_text;
      };
}

CredentialSource::CredentialSource(ConnectionConfig config, FileReader read, ExecRunner exec,
                                   WallClock now)
    : config_(std::move(config)),
      read_(std::move(read)),
      exec_(std::move(exec)),
      now_(std::move(now)) {}

ApiResult<AuthMaterial> CredentialSource::Current() {
  std::lock_guard lock(mu_);
  const Credentials& c = config_.credentials;
  AuthMaterial m;
  switch (c.kind) {
    case Credentials::Kind::kNone:
      break;
    case Credentials::Kind::kToken:
      m.bearer_token = c.token;
      break;
    case Credentials::Kind::kTokenFile: {
      auto now = now_();
      if (!file_token_read_at_ || now - *file_token_read_at_ >= kTokenFileRefresh) {
        Result<std::string> text = read_(c.token_file);
        if (!text.ok()) {
          // Keep using the last good token if there is one: a rotation in progress is no reason
          // to fail requests.
          if (file_token_.empty()) {
            return TransportError("token file " + c.token_file + ": " + text.message());
          }
        } else {
          file_token_ = Trimmed(*text);
          file_token_read_at_ = now;
        }
      }
      m.bearer_token = file_token_;
      break;
    }
    case Credentials::Kind::kClientCertificate:
      break;
    case Credentials::Kind::kBasic:
      m.basic_user = c.username;
      m.basic_password = c.password;
      break;
    case Credentials::Kind::kExec:
      return FromExec();
  }
  // A client certificate may accompany any of the above (kubeconfig allows token + cert).
  m.client_cert_pem = c.client_cert_pem;
  m.client_key_pem = c.client_key_pem;
  return m;
}

ApiResult<AuthMaterial> CredentialSource::FromExec() {
  const ExecCredentialPlugin& plugin = *config_.credentials.exec;
  if (!exec_cached_ || (exec_cached_->expires && now_() >= *exec_cached_->expires)) {
    nlohmann::json info = {{"apiVersion", plugin.api_version},
                           {"kind", "ExecCredential"},
                           {"spec", {{"interactive", false}}}};
    if (plugin.provide_cluster_info) {
      info["spec"]["cluster"] = {{"server", config_.server},
                                 {"insecure-skip-tls-verify", config_.insecure_skip_tls_verify}};
      if (!config_.tls_server_name.empty()) {
        info["spec"]["cluster"]["tls-server-name"] = config_.tls_server_name;
      }
    }
    Result<std::string> out = exec_(plugin, info.dump());
    if (!out.ok()) return TransportError(out.message());
    Result<ExecCredential> credential = ParseExecCredential(*out);
    if (!credential.ok()) {
      return TransportError("exec plugin " + plugin.command + ": " + credential.message());
    }
    exec_cached_ = *credential;
  }
  AuthMaterial m;
  m.bearer_token = exec_cached_->token;
  m.client_cert_pem = exec_cached_->client_cert_pem.empty() ? config_.credentials.client_cert_pem
                                                            : exec_cached_->client_cert_pem;
  m.client_key_pem = exec_cached_->client_key_pem.empty() ? config_.credentials.client_key_pem
                                                          : exec_cached_->client_key_pem;
  return m;
}

void CredentialSource::Invalidate() {
  std::lock_guard lock(mu_);
  exec_cached_.reset();
  file_token_read_at_.reset();
}

}  // namespace quotient::kubeclient
