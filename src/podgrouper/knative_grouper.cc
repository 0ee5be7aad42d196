// Knative Service (serving.knative.dev/v1): pods are owned by a ReplicaSet of a Deployment of a
// Revision (of a Configuration of the Service). With gang scheduling each Revision is one
// PodGroup of min-scale pods, owned by the Revision; otherwise, and for revisions whose pods
// already have a PodGroup each, every pod is its own PodGroup. The Revision, found by the pod's
// serving.knative.dev/revision label, stands in for the top owner. KAI's
// plugins/knative/knative.go.
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {
namespace {

constexpr std::string_view kRevisionApiVersion = "serving.knative.dev/v1";
constexpr std::string_view kRevisionKind = "Revision";
constexpr std::string_view kRevisionLabel = "serving.knative.dev/revision";
constexpr std::string_view kMinScaleAnnotation = "autoscaling.knative.dev/min-scale";
constexpr std::string_view kPodGroupAnnotation = "pod-group-name";  // set on pods by the grouper
constexpr std::string_view kInferencePriority = "inference";

void Warn(std::vector<std::string>& warnings, const Object& object, std::string_view field,
          std::string_view problem) {
  warnings.push_back(object.Describe() + ": " + std::string(field) + ": " + std::string(problem));
}

const std::string* Find(const Labels& labels, std::string_view key) {
  auto found = labels.find(std::string(key));
  return found != labels.end() ? &found->second : nullptr;
}

const Object* RevisionInOwnerChain(const Request& request) {
  for (const Object& owner : request.owners) {
    if (owner.group() == "serving.knative.dev" && owner.kind == kRevisionKind) return &owner;
  }
  return nullptr;
}

// The pod's Revision, by its serving.knative.dev/revision label as KAI finds it. KAI refuses the
// pod when the label or the Revision is missing; we warn and use the Revision in the pod's owner
// chain when there is one.
const Object* FindRevision(const Request& request, std::vector<std::string>& warnings) {
  const Object* owner_revision = RevisionInOwnerChain(request);
  const std::string fallback = owner_revision != nullptr
                                   ? "using " + owner_revision->Describe() + " from its owners"
                                   : "the pod is grouped alone";
  const std::string field = "metadata.labels." + std::string(kRevisionLabel);
  const std::string* name = Find(request.pod.labels, kRevisionLabel);
  if (name == nullptr || name->empty()) {
    Warn(warnings, request.pod, field, "missing; " + fallback);
    return owner_revision;
  }
  const Object* revision =
      request.view.Find(std::string(kRevisionApiVersion), std::string(kRevisionKind),
                        request.pod.namespace_name, *name);
  if (revision == nullptr) {
    Warn(warnings, request.pod, field, "Revision \"" + *name + "\" not found; " + fallback);
    return owner_revision;
  }
  return revision;
}

// The pod's owners up to the Revision, so that the common part reads labels and annotations as
// if the Revision were the top owner.
std::vector<Object> OwnersUpTo(const Request& request, const Object& revision) {
  std::vector<Object> owners;
  for (const Object& owner : request.owners) {
    owners.push_back(owner);
    if (owner.kind == revision.kind && owner.name == revision.name) return owners;
  }
  return {revision};  // found by label only: the Revision stands alone above the pod
}

// Whether the revision's pods were grouped one PodGroup per pod before gang scheduling was
// turned on; such revisions keep that shape until they are replaced (KAI's isBCRevision).
bool GroupedPerPodBefore(const Object& revision, const ClusterView& view,
                         std::vector<std::string>& warnings) {
  std::set<std::string> pod_groups;
  for (const Object* pod : view.PodsWithLabels(revision.namespace_name,
                                               {{std::string(kRevisionLabel), revision.name}})) {
    const std::string* pod_group = Find(pod->annotations, kPodGroupAnnotation);
    if (pod_group == nullptr) continue;
    if (!pod_groups.insert(*pod_group).second) return false;  // two pods share one: a gang
  }
  if (pod_groups.size() > 1) return true;  // several PodGroups: one per pod
  if (pod_groups.empty()) return false;    // no pod grouped yet: a new revision
  const std::string& name = *pod_groups.begin();
  const PodGroupSpec* existing = view.ExistingPodGroup(revision.namespace_name, name);
  if (existing == nullptr || existing->owner.kind == revision.kind) return false;
  if (existing->owner.kind == "Pod") return true;
  Warn(warnings, revision, "PodGroup " + name,
       existing->owner.kind.empty()
           ? "the revision's only PodGroup has no owner; gang scheduling the revision"
           : "the revision's only PodGroup is owned by a " + existing->owner.kind +
                 ", neither the Revision nor a pod; gang scheduling the revision");
  return false;
}

// autoscaling.knative.dev/min-scale: the pods the revision always keeps, and so the gang.
int32_t MinScale(const Object& revision, std::vector<std::string>& warnings) {
  const std::string* text = Find(revision.annotations, kMinScaleAnnotation);
  if (text == nullptr) return 1;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, value);
  if (text->empty() || error != std::errc() || stop != end || value < 0 ||
      value > std::numeric_limits<int32_t>::max()) {
    Warn(warnings, revision, "metadata.annotations." + std::string(kMinScaleAnnotation),
         "\"" + *text + "\" is not a pod count; using 1");
    return 1;
  }
  // A revision that scales to zero still starts with one pod; a PodGroup needs minMember >= 1.
  return value == 0 ? 1 : static_cast<int32_t>(value);
}

// One PodGroup per pod, owned by the pod.
void GroupPerPod(const Object& pod, Grouping& grouping) {
  grouping.pod_group.name = "pg-" + pod.name + "-" + pod.uid;
  grouping.pod_group.owner = pod.AsOwner();
  grouping.pod_group.min_member = 1;
}

}  // namespace

Grouping GroupKnativeService(const Request& request) {
  std::vector<std::string> warnings;
  const Object* revision = FindRevision(request, warnings);
  if (revision == nullptr) {
    Grouping grouping = DefaultGrouping(request, std::string(kInferencePriority));
    GroupPerPod(request.pod, grouping);
    grouping.warnings.insert(grouping.warnings.end(), warnings.begin(), warnings.end());
    return grouping;
  }

  const std::vector<Object> owners = OwnersUpTo(request, *revision);
  const Request revision_request{request.pod, owners, *revision, request.view, request.settings};
  Grouping grouping = DefaultGrouping(revision_request, std::string(kInferencePriority));
  grouping.warnings.insert(grouping.warnings.end(), warnings.begin(), warnings.end());

  if (!request.settings.knative_gang ||
      GroupedPerPodBefore(*revision, request.view, grouping.warnings)) {
    GroupPerPod(request.pod, grouping);
    return grouping;
  }
  // The common part already named it pg-<revision>-<revision uid> and made the Revision its owner.
  grouping.pod_group.min_member = MinScale(*revision, grouping.warnings);
  return grouping;
}

}  // namespace quotient::podgrouper
