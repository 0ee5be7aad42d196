// Object keys as the cache and the core write them: "ns/name" for namespaced objects, "name" for
// cluster-scoped ones.
#pragma once

#include <string>
#include <utility>

namespace quotient::service {

// {namespace, name}; the namespace is "" for a key without a slash (cluster-scoped).
inline std::pair<std::string, std::string> SplitKey(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace quotient::service
