#include "kubeclient/client.h"

#include <nlohmann/json.hpp>

#include <thread>

namespace quotient::kubeclient {
namespace {

bool IsSuccess(int32_t code) { return code >= 200 && code < 300; }

// Appends "name=value" to a query being built.
void AddQuery(std::string& target, std::string_view name, std::string_view value) {
  target += target.find('?') == std::string::npos ? '?' : '&';
  target += name;
  target += '=';
  target += EscapeQueryValue(value);
}

std::string ListTarget(const Resource& resource, const std::string& namespace_name,
                       const ListOptions& options, const std::string& continue_token) {
  std::string target = resource.Path(namespace_name);
  if (!options.label_selector.empty()) AddQuery(target, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) AddQuery(target, "fieldSelector", options.field_selector);
  if (options.limit > 0) AddQuery(target, "limit", std::to_string(options.limit));
  if (!continue_token.empty()) {
    AddQuery(target, "continue", continue_token);
  } else if (!options.resource_version.empty()) {
    AddQuery(target, "resourceVersion", options.resource_version);
  }
  return target;
}

}  // namespace

std::string_view ContentTypeOf(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

Client::Client(std::unique_ptr<Transport> transport, ClientOptions options)
    : transport_(std::move(transport)), options_(std::move(options)) {
  if (!options_.sleep) {
    options_.sleep = [](std::chrono::seconds d) { std::this_thread::sleep_for(d); };
  }
}

ApiResult<HttpResponse> Client::Send(HttpRequest request) {
  for (int attempt = 0;; ++attempt) {
    if (options_.wait_for_token) options_.wait_for_token();
    ++requests_sent_;
    ApiResult<HttpResponse> response = transport_->Do(request);
    if (!response.ok()) return response;
    int32_t code = response->code;
    if (IsSuccess(code)) return response;
    // Like client-go: retry only when the server says when (429 from priority and fairness,
    // 5xx during startup); an answer without Retry-After is final.
    bool retriable = (code == 429 || code >= 500) && response->retry_after_seconds > 0;
    if (!retriable || attempt >= options_.max_retries) {
      return ErrorFromResponse(code, response->body, response->retry_after_seconds);
    }
    options_.sleep(std::chrono::seconds(response->retry_after_seconds));
  }
}

ApiResult<RawObject> Client::SendForObject(HttpRequest request) {
  ApiResult<HttpResponse> response = Send(std::move(request));
  if (!response.ok()) return response.error();
  Result<RawObject> object = ReadRawObject(response->body);
  if (!object.ok()) return DecodeError(object.message());
  return std::move(object).value();
}

ApiResult<RawObject> Client::Get(const Resource& resource, const std::string& namespace_name,
                                 const std::string& name) {
  return SendForObject({"GET", resource.Path(namespace_name, name), "", ""});
}

ApiResult<std::string> Client::ListEach(const Resource& resource, const std::string& namespace_name,
                                        const ListOptions& options,
                                        const std::function<void(RawObject&&)>& on_item) {
  std::string list_version;
  std::string continue_token;
  for (bool first = true;; first = false) {
    ApiResult<HttpResponse> response =
        Send({"GET", ListTarget(resource, namespace_name, options, continue_token), "", ""});
    if (!response.ok()) {
      // The continue token outlived etcd's compaction window. Items already handed over are
      // not taken back, so a caller that must be consistent uses List (which starts over).
      return response.error();
    }
    Result<ListPage> page = ParseListPage(response->body, on_item);
    if (!page.ok()) return DecodeError(resource.Describe() + ": " + page.message());
    if (first) list_version = page->resource_version;
    if (page->continue_token.empty()) return list_version;
    continue_token = page->continue_token;
  }
}

ApiResult<Client::ListResult> Client::List(const Resource& resource,
                                           const std::string& namespace_name,
                                           const ListOptions& options) {
  for (int attempt = 0;; ++attempt) {
    ListResult result;
    ApiResult<std::string> version =
        ListEach(resource, namespace_name, options,
                 [&](RawObject&& object) { result.items.push_back(std::move(object)); });
    if (version.ok()) {
      result.resource_version = *version;
      return result;
    }
    // 410 in the middle of a paged list: the snapshot is gone; one fresh start, as client-go's
    // pager falls back to a full list.
    if (!version.Is(ApiReason::kGone) || attempt > 0) return version.error();
  }
}

ApiStatus Client::Watch(const Resource& resource, const std::string& namespace_name,
                        const WatchOptions& options,
                        const std::function<void(WatchEvent&&)>& on_event,
                        const std::function<bool()>& cancelled) {
  std::string target = resource.Path(namespace_name);
  AddQuery(target, "watch", "1");
  if (!options.resource_version.empty()) {
    AddQuery(target, "resourceVersion", options.resource_version);
  }
  if (options.allow_bookmarks) AddQuery(target, "allowWatchBookmarks", "true");
  if (!options.label_selector.empty()) AddQuery(target, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) AddQuery(target, "fieldSelector", options.field_selector);
  if (options.timeout_seconds > 0) {
    AddQuery(target, "timeoutSeconds", std::to_string(options.timeout_seconds));
  }
  if (options_.wait_for_token) options_.wait_for_token();
  ++requests_sent_;

  LineFramer framer;
  std::vector<std::string> lines;
  std::optional<ApiError> failure;
  auto on_data = [&](std::string_view chunk) {
    lines.clear();
    framer.Feed(chunk, lines);
    for (const std::string& line : lines) {
      Result<WatchEvent> event = ParseWatchEvent(line);
      if (!event.ok()) {
        failure = DecodeError("watch " + resource.Describe() + ": " + event.message());
        return false;
      }
      if (event->type == WatchEvent::Type::kError) {
        failure = ErrorFromStatus(event->object.json);
        return false;
      }
      on_event(std::move(event).value());
    }
    return true;
  };
  ApiResult<HttpResponse> response =
      transport_->Stream({"GET", target, "", ""}, on_data, cancelled);
  if (failure) return *failure;
  if (!response.ok()) {
    if (cancelled && cancelled()) return Success();
    return response.error();
  }
  if (response->code != 0 && !IsSuccess(response->code)) {
    return ErrorFromResponse(response->code, response->body, response->retry_after_seconds);
  }
  return Success();
}

ApiResult<RawObject> Client::Create(const Resource& resource, const std::string& namespace_name,
                                    const std::string& json, const std::string& field_manager) {
  std::string target = resource.Path(namespace_name);
  if (!field_manager.empty()) AddQuery(target, "fieldManager", field_manager);
  return SendForObject({"POST", target, json, "application/json"});
}

ApiResult<RawObject> Client::Update(const Resource& resource, const std::string& namespace_name,
                                    const std::string& name, const std::string& json,
                                    const std::string& subresource) {
  return SendForObject(
      {"PUT", resource.Path(namespace_name, name, subresource), json, "application/json"});
}

ApiResult<RawObject> Client::Patch(const Resource& resource, const std::string& namespace_name,
                                   const std::string& name, PatchType type,
                                   const std::string& patch, const std::string& subresource,
                                   const std::string& field_manager) {
  std::string target = resource.Path(namespace_name, name, subresource);
  if (!field_manager.empty()) AddQuery(target, "fieldManager", field_manager);
  return SendForObject({"PATCH", target, patch, std::string(ContentTypeOf(type))});
}

ApiResult<RawObject> Client::Apply(const Resource& resource, const std::string& namespace_name,
                                   const std::string& name, const std::string& json,
                                   const std::string& field_manager, bool force,
                                   const std::string& subresource) {
  std::string target = resource.Path(namespace_name, name, subresource);
  AddQuery(target, "fieldManager", field_manager);
  if (force) AddQuery(target, "force", "true");
  // JSON is YAML, so the apply content type takes it as is.
  return SendForObject({"PATCH", target, json, "application/apply-patch+yaml"});
}

ApiStatus Client::Delete(const Resource& resource, const std::string& namespace_name,
                         const std::string& name, const DeleteOptions& options) {
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.precondition_uid.empty()) body["preconditions"]["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  ApiResult<HttpResponse> response =
      Send({"DELETE", resource.Path(namespace_name, name), body.dump(), "application/json"});
  if (!response.ok()) return response.error();
  return Success();
}

ApiStatus Client::Bind(const std::string& namespace_name, const std::string& pod,
                       const std::string& pod_uid, const std::string& node) {
  nlohmann::json body = {{"apiVersion", "v1"},
                         {"kind", "Binding"},
                         {"metadata", {{"name", pod}, {"namespace", namespace_name}}},
                         {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!pod_uid.empty()) body["metadata"]["uid"] = pod_uid;
  ApiResult<HttpResponse> response =
      Send({"POST", resources::Pods().Path(namespace_name, pod, "binding"), body.dump(),
            "application/json"});
  if (!response.ok()) return response.error();
  return Success();
}

ApiResult<EvictionOutcome> Client::Evict(const std::string& namespace_name, const std::string& pod,
                                         const std::string& pod_uid) {
  nlohmann::json body = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", pod}, {"namespace", namespace_name}}}};
  if (!pod_uid.empty()) body["deleteOptions"]["preconditions"]["uid"] = pod_uid;
  ApiResult<HttpResponse> response =
      Send({"POST", resources::Pods().Path(namespace_name, pod, "eviction"), body.dump(),
            "application/json"});
  if (response.ok()) return EvictionOutcome::kEvicted;
  if (response.Is(ApiReason::kTooManyRequests)) return EvictionOutcome::kBlockedByDisruptionBudget;
  return response.error();
}

ApiResult<RawObject> Client::UpdateWithRetry(
    const Resource& resource, const std::string& namespace_name, const std::string& name,
    const std::function<Result<std::string>(const RawObject&)>& mutate, int attempts) {
  for (int attempt = 1;; ++attempt) {
    ApiResult<RawObject> current = Get(resource, namespace_name, name);
    if (!current.ok()) return current;
    Result<std::string> updated = mutate(*current);
    if (!updated.ok()) return DecodeError(updated.message());
    ApiResult<RawObject> written = Update(resource, namespace_name, name, *updated);
    if (written.ok() || !written.Is(ApiReason::kConflict) || attempt >= attempts) return written;
  }
}

}  // namespace quotient::kubeclient
