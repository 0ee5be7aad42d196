// The REST client every Quotient component talks to the API server through: typed errors,
// client-side throttling (every request, watches included, takes a token: 50 QPS / burst 100 by
// default), retries of 429/5xx answers that carry Retry-After (at most 10, as client-go), paged
// lists, watches, and the writes a scheduler and its controllers need — create, update with
// optimistic concurrency, delete with preconditions, the four patch types, server-side apply,
// status subresources, pod binding and eviction.
//
// Objects go in and come out as JSON text (RawObject); typed views are the callers' business.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kubeclient/api_error.h"
#include "kubeclient/raw_object.h"
#include "kubeclient/resource.h"
#include "kubeclient/transport.h"
#include "kubeclient/watch_stream.h"

namespace quotient::kubeclient {

struct ClientOptions {
  // Called before every request; blocks until the client-side rate limit allows one.
  // Empty: no client-side limit. MakeClient installs a 50 QPS / burst 100 token bucket.
  std::function<void()> wait_for_token;
  int max_retries = 10;  // of answers carrying Retry-After
  // How the client waits out Retry-After (tests pass a recorder).
  std::function<void(std::chrono::seconds)> sleep;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 500;           // page size; 0 = no paging
  std::string resource_version;  // "" = most recent (consistent), "0" = any cached
};

struct WatchOptions {
  std::string resource_version;  // start after this version
  std::string label_selector;
  std::string field_selector;
  int64_t timeout_seconds = 0;  // server-side end of the stream; 0 = the server's default
  bool allow_bookmarks = true;
};

enum class PatchType { kMerge, kJson, kStrategicMerge };
std::string_view ContentTypeOf(PatchType type);

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", Background, Foreground, Orphan
  std::string precondition_uid;
  std::string precondition_resource_version;
};

enum class EvictionOutcome {
  kEvicted,
  // 429 TooManyRequests: a PodDisruptionBudget does not allow the disruption now. A normal
  // answer — the caller tries later — not an error.
  kBlockedByDisruptionBudget,
};

class Client {
 public:
  Client(std::unique_ptr<Transport> transport, ClientOptions options);

  ApiResult<RawObject> Get(const Resource& resource, const std::string& namespace_name,
                           const std::string& name);
  // Every page (limit/continue) into one result; the list's resourceVersion is the first
  // page's. An expired continue token (410) restarts the list from the beginning once.
  struct ListResult {
    std::vector<RawObject> items;
    std::string resource_version;
  };
  ApiResult<ListResult> List(const Resource& resource, const std::string& namespace_name,
                             const ListOptions& options);
  // The same, handing items over one at a time so a large list is never held twice; returns
  // the list's resourceVersion.
  ApiResult<std::string> ListEach(const Resource& resource, const std::string& namespace_name,
                                  const ListOptions& options,
                                  const std::function<void(RawObject&&)>& on_item);

  // Streams events until the server ends the watch (ok), `cancelled` says stop (ok), an ERROR
  // event arrives (its Status as the error: Gone means relist) or the request fails.
  // Bookmarks are passed on: the caller tracks resourceVersions.
  ApiStatus Watch(const Resource& resource, const std::string& namespace_name,
                  const WatchOptions& options, const std::function<void(WatchEvent&&)>& on_event,
                  const std::function<bool()>& cancelled);

  ApiResult<RawObject> Create(const Resource& resource, const std::string& namespace_name,
                              const std::string& json, const std::string& field_manager = {});
  // PUT; `json` must carry metadata.resourceVersion (a stale one is a Conflict).
  ApiResult<RawObject> Update(const Resource& resource, const std::string& namespace_name,
                              const std::string& name, const std::string& json,
                              const std::string& subresource = {});
  ApiResult<RawObject> Patch(const Resource& resource, const std::string& namespace_name,
                             const std::string& name, PatchType type, const std::string& patch,
                             const std::string& subresource = {},
                             const std::string& field_manager = {});
  // Server-side apply: `json` holds apiVersion, kind, metadata.name and the fields
  // `field_manager` owns. Without `force`, a field owned by another manager is a Conflict.
  ApiResult<RawObject> Apply(const Resource& resource, const std::string& namespace_name,
                             const std::string& name, const std::string& json,
                             const std::string& field_manager, bool force,
                             const std::string& subresource = {});
  ApiStatus Delete(const Resource& resource, const std::string& namespace_name,
                   const std::string& name, const DeleteOptions& options = {});

  // POST pods/<name>/binding; `pod_uid` (if not empty) is a precondition.
  ApiStatus Bind(const std::string& namespace_name, const std::string& pod,
                 const std::string& pod_uid, const std::string& node);
  ApiResult<EvictionOutcome> Evict(const std::string& namespace_name, const std::string& pod,
                                   const std::string& pod_uid);

  // Read-modify-write with optimistic concurrency: reads the object, lets `mutate` produce the
  // new JSON (keeping the read resourceVersion), PUTs it, and on Conflict starts over — up to
  // `attempts` times (client-go's retry.RetryOnConflict uses 5).
  ApiResult<RawObject> UpdateWithRetry(
      const Resource& resource, const std::string& namespace_name, const std::string& name,
      const std::function<Result<std::string>(const RawObject&)>& mutate, int attempts = 5);

  // Sends a request through throttling and the Retry-After loop; an HTTP answer outside 2xx
  // becomes its typed ApiError.
  ApiResult<HttpResponse> Send(HttpRequest request);

  // Requests sent so far (retries and watch starts included), for metrics and tests.
  int64_t RequestsSent() const { return requests_sent_.load(); }

 private:
  ApiResult<RawObject> SendForObject(HttpRequest request);

  std::unique_ptr<Transport> transport_;
  ClientOptions options_;
  std::atomic<int64_t> requests_sent_{0};
};

}  // namespace quotient::kubeclient
