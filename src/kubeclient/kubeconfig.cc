#include "kubeclient/kubeconfig.h"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/value.h"

namespace quotient::kubeclient {
namespace {

using kube::Value;

// One kubeconfig file, parsed: named entries keep their file for relative paths and messages.
struct Entry {
  const Value* body = nullptr;
  std::string file;
};
struct Merged {
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
  std::string current_context;
  std::vector<std::vector<Value>> documents;  // owns the parsed trees
};

std::string Where(const std::string& file, const std::string& entry, const std::string& field) {
  return file + ": " + entry + (field.empty() ? "" : ": " + field);
}

Result<std::string> StringField(const Value& map, const std::string& key, const std::string& at) {
  const Value* v = map.Find(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (v->type() != Value::Type::kString) {
    return Result<std::string>::Error(at + ": " + key + ": expected a string");
  }
  return v->text();
}

Result<bool> BoolField(const Value& map, const std::string& key, const std::string& at) {
  const Value* v = map.Find(key);
  if (v == nullptr || v->is_null()) return false;
  if (v->type() != Value::Type::kBool) {
    return Result<bool>::Error(at + ": " + key + ": expected true or false");
  }
  return v->bool_value();
}

std::string Resolve(const std::string& path, const std::string& kubeconfig_file) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(kubeconfig_file).parent_path() / path).string();
}

// `data` (base64) or `file` (a path), the data taking precedence as in client-go.
Result<std::string> Material(const Value& map, const std::string& data_key,
                             const std::string& file_key, const Entry& entry, const std::string& at,
                             const FileReader& read) {
  Result<std::string> data = StringField(map, data_key, at);
  if (!data.ok()) return data;
  if (!data->empty()) {
    std::optional<std::string> decoded = DecodeBase64(*data);
    if (!decoded) return Result<std::string>::Error(at + ": " + data_key + ": not base64");
    return *decoded;
  }
  Result<std::string> file = StringField(map, file_key, at);
  if (!file.ok() || file->empty()) return file;
  Result<std::string> text = read(Resolve(*file, entry.file));
  if (!text.ok()) return Result<std::string>::Error(at + ": " + file_key + ": " + text.message());
  return text;
}

Status AddNamed(const Value& doc, const std::string& list_key, const std::string& body_key,
                const std::string& file, std::map<std::string, Entry>& into) {
  const Value* list = doc.Find(list_key);
  if (list == nullptr || list->is_null()) return Status::Ok();
  if (!list->is_sequence()) return Status::Error(file + ": " + list_key + ": expected a list");
  for (size_t i = 0; i < list->items().size(); ++i) {
    const Value& item = list->items()[i];
    const std::string at = file + ": " + list_key + "[" + std::to_string(i) + "]";
    const Value* name = item.is_mapping() ? item.Find("name") : nullptr;
    const Value* body = item.is_mapping() ? item.Find(body_key) : nullptr;
    if (name == nullptr || name->type() != Value::Type::kString || name->text().empty()) {
      return Status::Error(at + ": name: expected a non-empty string");
    }
    if (body == nullptr || !body->is_mapping()) {
      return Status::Error(at + ": " + body_key + ": expected a map");
    }
    into.emplace(name->text(), Entry{body, file});  // the first file naming it wins
  }
  return Status::Ok();
}

Result<Credentials> ReadUser(const Entry& user, const std::string& name, const FileReader& read) {
  using R = Result<Credentials>;
  const Value& u = *user.body;
  const std::string at = Where(user.file, "user " + name, "");
  Credentials c;
  Result<std::string> token = StringField(u, "token", at);
  Result<std::string> token_file = StringField(u, "tokenFile", at);
  Result<std::string> username = StringField(u, "username", at);
  Result<std::string> password = StringField(u, "password", at);
  Result<std::string> cert =
      Material(u, "client-certificate-data", "client-certificate", user, at, read);
  Result<std::string> key = Material(u, "client-key-data", "client-key", user, at, read);
  for (const Result<std::string>* r : {&token, &token_file, &username, &password, &cert, &key}) {
    if (!r->ok()) return r->status();
  }
  if (!cert->empty() || !key->empty()) {
    if (cert->empty() || key->empty()) {
      return R::Error(at + ": a client certificate needs both the certificate and the key");
    }
    c.kind = Credentials::Kind::kClientCertificate;
    c.client_cert_pem = *cert;
    c.client_key_pem = *key;
  }
  if (!token->empty()) {
    c.kind = Credentials::Kind::kToken;  // a bearer token wins over a certificate, as in client-go
    c.token = *token;
  } else if (!token_file->empty()) {
    c.kind = Credentials::Kind::kTokenFile;
    c.token_file = Resolve(*token_file, user.file);
  } else if (!username->empty() && c.kind == Credentials::Kind::kNone) {
    c.kind = Credentials::Kind::kBasic;
    c.username = *username;
    c.password = *password;
  }
  if (const Value* exec = u.Find("exec"); exec != nullptr && !exec->is_null()) {
    if (!exec->is_mapping()) return R::Error(at + ": exec: expected a map");
    ExecCredentialPlugin p;
    const std::string eat = at + ": exec";
    for (auto [field, out] :
         {std::pair{"apiVersion", &p.api_version}, std::pair{"command", &p.command},
          std::pair{"interactiveMode", &p.interactive_mode}}) {
      Result<std::string> v = StringField(*exec, field, eat);
      if (!v.ok()) return v.status();
      *out = *v;
    }
    if (p.command.empty()) return R::Error(eat + ": command: required");
    // As client-go: a command with a path separator is relative to the kubeconfig's folder; a
    // bare name is looked up on PATH.
    if (p.command.find('/') != std::string::npos) p.command = Resolve(p.command, user.file);
    Result<bool> info = BoolField(*exec, "provideClusterInfo", eat);
    if (!info.ok()) return info.status();
    p.provide_cluster_info = *info;
    if (const Value* args = exec->Find("args"); args != nullptr && args->is_sequence()) {
      for (const Value& a : args->items()) p.args.push_back(a.text());
    }
    if (const Value* env = exec->Find("env"); env != nullptr && env->is_sequence()) {
      for (const Value& e : env->items()) {
        const Value* n = e.is_mapping() ? e.Find("name") : nullptr;
        const Value* v = e.is_mapping() ? e.Find("value") : nullptr;
        if (n == nullptr || v == nullptr) return R::Error(eat + ": env: needs name and value");
        p.env.emplace_back(n->text(), v->text());
      }
    }
    if (c.kind == Credentials::Kind::kNone) c.kind = Credentials::Kind::kExec;
    c.exec = std::move(p);
  }
  return c;
}

Result<ConnectionConfig> Build(const Merged& m, const std::string& wanted, const FileReader& read) {
  using R = Result<ConnectionConfig>;
  const std::string context_name = wanted.empty() ? m.current_context : wanted;
  if (context_name.empty()) return R::Error("kubeconfig: no context given and no current-context");
  auto ctx = m.contexts.find(context_name);
  if (ctx == m.contexts.end())
    return R::Error("kubeconfig: context " + context_name + " not found");
  const std::string cat = Where(ctx->second.file, "context " + context_name, "");
  Result<std::string> cluster_name = StringField(*ctx->second.body, "cluster", cat);
  Result<std::string> user_name = StringField(*ctx->second.body, "user", cat);
  Result<std::string> ns = StringField(*ctx->second.body, "namespace", cat);
  for (const Result<std::string>* r : {&cluster_name, &user_name, &ns}) {
    if (!r->ok()) return r->status();
  }
  auto cluster = m.clusters.find(*cluster_name);
  if (cluster == m.clusters.end()) {
    return R::Error(cat + ": cluster: cluster \"" + *cluster_name + "\" not found");
  }
  ConnectionConfig cfg;
  cfg.context = context_name;
  if (!ns->empty()) cfg.namespace_name = *ns;
  const Value& c = *cluster->second.body;
  const std::string at = Where(cluster->second.file, "cluster " + *cluster_name, "");
  Result<std::string> server = StringField(c, "server", at);
  Result<std::string> sni = StringField(c, "tls-server-name", at);
  Result<std::string> proxy = StringField(c, "proxy-url", at);
  Result<bool> insecure = BoolField(c, "insecure-skip-tls-verify", at);
  Result<std::string> ca =
      Material(c, "certificate-authority-data", "certificate-authority", cluster->second, at, read);
  for (const Result<std::string>* r : {&server, &sni, &proxy, &ca}) {
    if (!r->ok()) return r->status();
  }
  if (!insecure.ok()) return insecure.status();
  if (server->empty()) return R::Error(at + ": server: required");
  cfg.server = *server;
  cfg.tls_server_name = *sni;
  cfg.proxy_url = *proxy;
  cfg.insecure_skip_tls_verify = *insecure;
  cfg.ca_pem = *ca;
  if (!user_name->empty()) {
    auto user = m.users.find(*user_name);
    if (user == m.users.end()) {
      return R::Error(cat + ": user: user \"" + *user_name + "\" not found");
    }
    Result<Credentials> creds = ReadUser(user->second, *user_name, read);
    if (!creds.ok()) return creds.status();
    cfg.credentials = *creds;
  }
  return cfg;
}

}  // namespace

FileReader RealFileReader() {
  return [](const std::string& path) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Result<std::string>::Error(path + ": cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
}

std::optional<std::string> DecodeBase64(const std::string& text) {
  std::string clean;
  for (char ch : text) {
    if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') clean += ch;
  }
  while (clean.size() % 4 != 0) clean += '=';
  if (clean.empty()) return std::string();
  std::string out(clean.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(clean.data()),
                                static_cast<int>(clean.size()));
  if (n < 0) return std::nullopt;
  size_t padding = 0;
  for (size_t i = clean.size(); i-- > 0 && clean[i] == '=';) ++padding;
  out.resize(static_cast<size_t>(n) - std::min<size_t>(padding, 2));
  return out;
}

std::vector<std::string> SplitKubeconfigPaths(const std::string& value) {
  std::vector<std::string> out;
  std::string current;
  for (char ch : value + ":") {
    if (ch == ':') {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += ch;
    }
  }
  return out;
}

Result<ConnectionConfig> LoadKubeconfig(const std::vector<std::string>& paths,
                                        const std::string& context, const FileReader& read) {
  using R = Result<ConnectionConfig>;
  Merged m;
  for (const std::string& path : paths) {
    Result<std::string> text = read(path);
    if (!text.ok()) return R::Error(text.message());
    Result<std::vector<Value>> docs = kube::ParseYamlDocuments(*text);
    if (!docs.ok()) return R::Error(path + ": " + docs.message());
    m.documents.push_back(std::move(docs.value()));
    for (const Value& doc : m.documents.back()) {
      if (!doc.is_mapping()) return R::Error(path + ": expected a map at the top level");
      if (Status s = AddNamed(doc, "clusters", "cluster", path, m.clusters); !s.ok()) return s;
      if (Status s = AddNamed(doc, "users", "user", path, m.users); !s.ok()) return s;
      if (Status s = AddNamed(doc, "contexts", "context", path, m.contexts); !s.ok()) return s;
      Result<std::string> current = StringField(doc, "current-context", path);
      if (!current.ok()) return current.status();
      if (m.current_context.empty()) m.current_context = *current;
    }
  }
  return Build(m, context, read);
}

Result<ConnectionConfig> InClusterConfig(const std::map<std::string, std::string>& env,
                                         const std::string& account_dir, const FileReader& read) {
  using R = Result<ConnectionConfig>;
  auto host = env.find("KUBERNETES_SERVICE_HOST");
  auto port = env.find("KUBERNETES_SERVICE_PORT");
  if (host == env.end() || port == env.end() || host->second.empty() || port->second.empty()) {
    return R::Error("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT unset");
  }
  ConnectionConfig cfg;
  const bool ipv6 = host->second.find(':') != std::string::npos;
  cfg.server = "https://" + (ipv6 ? "[" + host->second + "]" : host->second) + ":" + port->second;
  Result<std::string> ca = read(account_dir + "/ca.crt");
  if (!ca.ok()) return R::Error("in-cluster CA: " + ca.message());
  cfg.ca_pem = *ca;
  cfg.credentials.kind = Credentials::Kind::kTokenFile;
  cfg.credentials.token_file = account_dir + "/token";
  if (Result<std::string> token = read(cfg.credentials.token_file); !token.ok()) {
    return R::Error("in-cluster token: " + token.message());
  }
  if (Result<std::string> ns = read(account_dir + "/namespace"); ns.ok()) {
    std::string n = *ns;
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
    if (!n.empty()) cfg.namespace_name = n;
  }
  return cfg;
}

}  // namespace quotient::kubeclient
