#include "podgrouper_controller/owner_resolver.h"

#include "kube/value.h"

namespace quotient::podgrouper_controller {

namespace {

// Discovery's answer for one apiVersion: kind -> resource, subresources ("pods/status") left out.
Result<std::map<std::string, kubeclient::Resource>> ParseDiscovery(const std::string& api_version,
                                                                   const std::string& body) {
  using R = Result<std::map<std::string, kubeclient::Resource>>;
  Result<kube::Value> doc = kube::ParseJson(body);
  if (!doc.ok()) return R::Error(api_version + " discovery: " + doc.message());
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  std::map<std::string, kubeclient::Resource> out;
  const kube::Value* list = doc.value().Find("resources");
  for (size_t i = 0; list != nullptr && list->is_sequence() && i < list->size(); ++i) {
    const kube::Value& r = list->items()[i];
    const std::string name = podgrouper::ReadString(r.Find("name"));
    const std::string kind = podgrouper::ReadString(r.Find("kind"));
    if (name.empty() || kind.empty() || name.find('/') != std::string::npos) continue;
    const kube::Value* namespaced = r.Find("namespaced");
    out[kind] = kubeclient::Resource{group, version, name,
                                     namespaced == nullptr ||
                                         namespaced->type() != kube::Value::Type::kBool ||
                                         namespaced->bool_value()};
  }
  return out;
}

}  // namespace

OwnerResolver::OwnerResolver(kubeclient::Client& client, std::chrono::seconds ttl)
    : client_(client), ttl_(ttl) {}

kubeclient::ApiResult<std::optional<kubeclient::Resource>> OwnerResolver::ResourceFor(
    const std::string& api_version, const std::string& kind) {
  const Clock::time_point now = Clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = discovery_.find(api_version);
    if (it != discovery_.end() && now - it->second.read < ttl_) {
      auto found = it->second.by_kind.find(kind);
      if (found == it->second.by_kind.end()) return std::optional<kubeclient::Resource>();
      return std::optional<kubeclient::Resource>(found->second);
    }
  }
  kubeclient::HttpRequest request;
  request.target =
      api_version.find('/') == std::string::npos ? "/api/" + api_version : "/apis/" + api_version;
  kubeclient::ApiResult<kubeclient::HttpResponse> answer = client_.Send(request);
  Discovery discovery{now, {}};
  if (answer.ok()) {
    Result<std::map<std::string, kubeclient::Resource>> parsed =
        ParseDiscovery(api_version, answer.value().body);
    if (!parsed.ok()) return kubeclient::DecodeError(parsed.message());
    discovery.by_kind = std::move(parsed).value();
  } else if (answer.error().reason != kubeclient::ApiReason::kNotFound) {
    return answer.error();
  }
  std::lock_guard lock(mu_);
  Discovery& kept = discovery_[api_version] = std::move(discovery);
  auto found = kept.by_kind.find(kind);
  if (found == kept.by_kind.end()) return std::optional<kubeclient::Resource>();
  return std::optional<kubeclient::Resource>(found->second);
}

kubeclient::ApiResult<std::optional<podgrouper::Object>> OwnerResolver::Get(
    const std::string& api_version, const std::string& kind, const std::string& namespace_name,
    const std::string& name) {
  const std::string key = api_version + "/" + kind + "/" + namespace_name + "/" + name;
  const Clock::time_point now = Clock::now();
  {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it != objects_.end() && now - it->second.read < ttl_) return it->second.object;
  }
  kubeclient::ApiResult<std::optional<kubeclient::Resource>> resource =
      ResourceFor(api_version, kind);
  if (!resource.ok()) return resource.error();
  std::optional<podgrouper::Object> object;
  if (resource.value()) {
    kubeclient::ApiResult<kubeclient::RawObject> raw =
        client_.Get(*resource.value(), resource.value()->namespaced ? namespace_name : "", name);
    if (!raw.ok() && raw.error().reason != kubeclient::ApiReason::kNotFound) return raw.error();
    if (raw.ok()) {
      Result<kube::Value> doc = kube::ParseJson(raw.value().json);
      if (!doc.ok()) return kubeclient::DecodeError(key + ": " + doc.message());
      Result<podgrouper::Object> decoded =
          podgrouper::ObjectFromValue(std::move(doc).value(), api_version, kind);
      if (!decoded.ok()) return kubeclient::DecodeError(key + ": " + decoded.message());
      object = std::move(decoded).value();
    }
  }
  std::lock_guard lock(mu_);
  objects_[key] = Read{now, object};
  // Forget what has expired now and then, so the map does not keep every owner ever seen.
  if (objects_.size() > 4096) {
    std::erase_if(objects_, [&](const auto& entry) { return now - entry.second.read >= ttl_; });
  }
  return object;
}

}  // namespace quotient::podgrouper_controller
