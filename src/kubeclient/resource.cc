#include "kubeclient/resource.h"

#include <array>

namespace quotient::kubeclient {

std::string Resource::Path(std::string_view namespace_name, std::string_view name,
                           std::string_view subresource) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !namespace_name.empty()) {
    path += "/namespaces/";
    path += namespace_name;
  }
  path += "/" + plural;
  if (!name.empty()) {
    path += "/";
    path += name;
    if (!subresource.empty()) {
      path += "/";
      path += subresource;
    }
  }
  return path;
}

std::string Resource::Describe() const { return group.empty() ? plural : plural + "." + group; }

namespace resources {
Resource Pods() { return {"", "v1", "pods", true}; }
Resource Nodes() { return {"", "v1", "nodes", false}; }
Resource Namespaces() { return {"", "v1", "namespaces", false}; }
Resource Events() { return {"events.k8s.io", "v1", "events", true}; }
Resource Leases() { return {"coordination.k8s.io", "v1", "leases", true}; }
Resource PodDisruptionBudgets() { return {"policy", "v1", "poddisruptionbudgets", true}; }
Resource Jobs() { return {"batch", "v1", "jobs", true}; }
Resource ConfigMaps() { return {"", "v1", "configmaps", true}; }
Resource Queues() { return {"scheduling.run.ai", "v2", "queues", false}; }
Resource PodGroups() { return {"scheduling.run.ai", "v2alpha2", "podgroups", true}; }
Resource ClusterRoles() { return {"rbac.authorization.k8s.io", "v1", "clusterroles", false}; }
Resource ClusterRoleBindings() {
  return {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false};
}
}  // namespace resources

std::string EscapeQueryValue(std::string_view value) {
  constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                         '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
  std::string out;
  for (char ch : value) {
    auto c = static_cast<unsigned char>(ch);
    bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace quotient::kubeclient
