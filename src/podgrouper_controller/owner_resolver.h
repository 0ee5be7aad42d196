// Reads the owners of pods, of any kind: the API group's discovery document tells the resource
// (plural) that serves a kind, then the object is read with a GET. Kinds whose group is not
// served (a CRD that is not installed) and objects that are gone are "no owner", not errors:
// the pod is then grouped by what is there. Both answers are kept for a short while, since the
// pods of one workload ask for the same owners.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "kubeclient/client.h"
#include "podgrouper/object.h"

namespace quotient::podgrouper_controller {

class OwnerResolver {
 public:
  // `ttl`: how long a read object or a discovery answer is reused.
  OwnerResolver(kubeclient::Client& client, std::chrono::seconds ttl);

  // The object, or nullopt when its kind is not served or it does not exist; an error when the
  // API server could not answer (retry later).
  kubeclient::ApiResult<std::optional<podgrouper::Object>> Get(const std::string& api_version,
                                                               const std::string& kind,
                                                               const std::string& namespace_name,
                                                               const std::string& name);

 private:
  using Clock = std::chrono::steady_clock;
  // The resource serving `kind` in `api_version`, nullopt when none does.
  kubeclient::ApiResult<std::optional<kubeclient::Resource>> ResourceFor(
      const std::string& api_version, const std::string& kind);

  struct Discovery {
    Clock::time_point read;
    std::map<std::string, kubeclient::Resource> by_kind;  // empty when the version is not served
  };
  struct Read {
    Clock::time_point read;
    std::optional<podgrouper::Object> object;
  };

  kubeclient::Client& client_;
  const std::chrono::seconds ttl_;
  std::mutex mu_;
  std::map<std::string, Discovery> discovery_;  // by apiVersion
  std::map<std::string, Read> objects_;         // by apiVersion/kind/namespace/name
};

}  // namespace quotient::podgrouper_controller
