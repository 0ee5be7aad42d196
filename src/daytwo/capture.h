// `kubectl quotient snapshot` and the live commands' input: the cluster's scheduling objects,
// listed from the API server and stripped (strip.h), as one `kind: List` document that
// `quotient schedule` and `quotient simulate` read like any manifest file.
//
// Errors say what a person can do about them: a kind the API server does not serve (the CRDs are
// not installed), a list RBAC refuses (with the permissions needed), an API server that cannot be
// reached or that refuses the credentials.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "kubeclient/client.h"

namespace quotient::daytwo {

struct CapturedCluster {
  nlohmann::ordered_json list;           // {"apiVersion":"v1","kind":"List","items":[...]}
  std::map<std::string, size_t> counts;  // by kind
};

// Pods that finished (Succeeded, Failed) hold nothing and are left out.
Result<CapturedCluster> CaptureCluster(kubeclient::Client& client);

// What a person reads when listing `resource` failed with `error`.
std::string ExplainListError(const kubeclient::Resource& resource,
                             const kubeclient::ApiError& error);

// The permissions the live commands need, for error messages and docs.
inline constexpr std::string_view kNeededPermissions =
    "get and list on nodes, pods, priorityclasses.scheduling.k8s.io, queues.scheduling.run.ai "
    "and podgroups.scheduling.run.ai, cluster-wide";

}  // namespace quotient::daytwo
