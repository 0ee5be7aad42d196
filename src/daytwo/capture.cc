#include "daytwo/capture.h"

#include "daytwo/strip.h"

namespace quotient::daytwo {
namespace {

kubeclient::Resource ResourceOf(std::string_view kind) {
  if (kind == "Node") return kubeclient::resources::Nodes();
  if (kind == "Pod") return kubeclient::resources::Pods();
  if (kind == "PriorityClass") return {"scheduling.k8s.io", "v1", "priorityclasses", false};
  if (kind == "Queue") return kubeclient::resources::Queues();
  return kubeclient::resources::PodGroups();
}

std::string FullName(const kubeclient::Resource& r) {
  return r.group.empty() ? r.plural : r.plural + "." + r.group;
}

}  // namespace

std::string ExplainListError(const kubeclient::Resource& resource,
                             const kubeclient::ApiError& error) {
  const std::string what = FullName(resource);
  switch (error.reason) {
    case kubeclient::ApiReason::kNotFound:
      return "the API server does not serve " + what +
             ": its CustomResourceDefinition is not installed (install KAI's or Quotient's "
             "CRDs, e.g. `helm install quotient deploy/helm/quotient`)";
    case kubeclient::ApiReason::kForbidden:
      return "not allowed to list " + what + " (" + error.message +
             "); the quotient plugin needs " + std::string(kNeededPermissions);
    case kubeclient::ApiReason::kUnauthorized:
      return "the API server did not accept the credentials of the current kubeconfig context "
             "(" +
             error.message + ")";
    case kubeclient::ApiReason::kTransport:
      return "cannot reach the API server: " + error.message;
    default:
      return "listing " + what + " failed: " + error.Describe();
  }
}

Result<CapturedCluster> CaptureCluster(kubeclient::Client& client) {
  CapturedCluster out;
  out.list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::ordered_json::array()}};
  for (const SnapshotKind& kind : kSnapshotKinds) {
    const kubeclient::Resource resource = ResourceOf(kind.kind);
    kubeclient::ListOptions options;
    if (kind.kind == "Pod") options.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
    size_t count = 0;
    std::string bad_item;
    auto listed = client.ListEach(resource, "", options, [&](kubeclient::RawObject&& raw) {
      const nlohmann::json object = nlohmann::json::parse(raw.json, nullptr, false);
      if (!object.is_object()) {
        bad_item = raw.Key();
        return;
      }
      out.list["items"].push_back(StripObject(kind, object));
      ++count;
    });
    if (!listed.ok())
      return Result<CapturedCluster>::Error(ExplainListError(resource, listed.error()));
    if (!bad_item.empty()) {
      return Result<CapturedCluster>::Error(std::string(kind.kind) + " " + bad_item +
                                            ": the API server sent something that is not JSON");
    }
    out.counts[std::string(kind.kind)] = count;
  }
  return out;
}

}  // namespace quotient::daytwo
