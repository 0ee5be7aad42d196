// Names of API resources (group, version, plural, scope) and the URL paths built from them:
// core resources live under /api/v1, everything else under /apis/<group>/<version>.
#pragma once

#include <string>
#include <string_view>

namespace quotient::kubeclient {

struct Resource {
  std::string group;  // "" for the core group
  std::string version;
  std::string plural;
  bool namespaced = true;

  // "/api/v1/namespaces/ns/pods/name/status"; an empty `namespace_name` on a namespaced
  // resource addresses all namespaces (lists and watches), an empty `name` the collection.
  std::string Path(std::string_view namespace_name, std::string_view name = {},
                   std::string_view subresource = {}) const;
  // "pods" or "queues.scheduling.run.ai", for messages.
  std::string Describe() const;
};

namespace resources {
Resource Pods();
Resource Nodes();
Resource Namespaces();
Resource Events();                // events.k8s.io/v1
Resource Leases();                // coordination.k8s.io/v1
Resource PodDisruptionBudgets();  // policy/v1
Resource Jobs();                  // batch/v1
Resource ConfigMaps();
Resource Queues();     // scheduling.run.ai/v2, cluster-scoped
Resource PodGroups();  // scheduling.run.ai/v2alpha2
Resource ClusterRoles();
Resource ClusterRoleBindings();
}  // namespace resources

// Percent-encodes a query parameter value (RFC 3986 unreserved characters pass through).
std::string EscapeQueryValue(std::string_view value);

}  // namespace quotient::kubeclient
