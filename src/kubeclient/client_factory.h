// Building a ready-to-use Client: where the connection settings come from (an explicit
// kubeconfig, $KUBECONFIG, in-cluster service account, ~/.kube/config — client-go's order) and
// the real transport with a token bucket in front (50 QPS / burst 100 unless configured).
#pragma once

#include <memory>
#include <string>

#include "kubeclient/client.h"
#include "kubeclient/curl_transport.h"
#include "kubeclient/kubeconfig.h"

namespace quotient::kubeclient {

struct ClientConfig {
  int64_t qps = 50;  // <= 0: no client-side limit
  int burst = 100;
  TransportOptions transport;
};

// `kubeconfig` (a path, or "" to look further), then KUBECONFIG, then in-cluster, then
// $HOME/.kube/config; `context` "" = current-context.
Result<ConnectionConfig> LoadConnectionConfig(const std::string& kubeconfig,
                                              const std::string& context);

std::unique_ptr<Client> MakeClient(const ConnectionConfig& connection,
                                   const ClientConfig& config = {});

}  // namespace quotient::kubeclient
