// LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): one PodGroup per group (a leader and its
// workers), sized by leaderWorkerTemplate.size, with a `leader` and a `workers` subgroup. Leader
// pods are owned by the LWS's StatefulSet; each group's workers by a StatefulSet the leader pod
// owns, so every pod's top owner is the LWS. KAI's plugins/leaderworkerset/lws_grouper.go.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {
namespace {

constexpr std::string_view kGroupIndexLabel = "leaderworkerset.sigs.k8s.io/group-index";
constexpr std::string_view kWorkerIndexLabel = "leaderworkerset.sigs.k8s.io/worker-index";
constexpr std::string_view kSizeAnnotation = "leaderworkerset.sigs.k8s.io/size";
constexpr std::string_view kLeaderWorkerIndex = "0";
constexpr std::string_view kLeaderCreated = "LeaderCreated";
constexpr std::string_view kLeaderReady = "LeaderReady";
constexpr std::string_view kLeaderSubGroup = "leader";
constexpr std::string_view kWorkersSubGroup = "workers";

void Warn(std::vector<std::string>& warnings, const Object& object, std::string_view field,
          std::string_view problem) {
  warnings.push_back(object.Describe() + ": " + std::string(field) + ": " + std::string(problem));
}

// A label or annotation holding a non-negative decimal integer.
std::optional<int64_t> ParseIndex(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < 0) return std::nullopt;
  return value;
}

const std::string* Find(const Labels& labels, std::string_view key) {
  auto found = labels.find(std::string(key));
  return found != labels.end() ? &found->second : nullptr;
}

// Pods per group. KAI refuses an LWS without a positive size; a gang of one keeps its pods
// schedulable (the LWS API defaults the size to 1).
int32_t GroupSize(const Object& lws, std::vector<std::string>& warnings) {
  const char* field = "spec.leaderWorkerTemplate.size";
  const kube::Value* value = At(lws, {"spec", "leaderWorkerTemplate", "size"});
  std::optional<int32_t> size = ReadCount(value, lws, field, warnings);
  if (!size.has_value()) {
    if (value == nullptr || value->is_null()) Warn(warnings, lws, field, "missing; using 1");
    return 1;
  }
  if (*size == 0) {
    Warn(warnings, lws, field, "0 is not a group size; using 1");
    return 1;
  }
  return *size;
}

// LeaderCreated (the LWS default) starts workers with the leader, so the whole group is one
// gang; LeaderReady starts them only once the leader is ready.
bool WaitsForReadyLeader(const Object& lws, std::vector<std::string>& warnings) {
  const kube::Value* policy = At(lws, {"spec", "startupPolicy"});
  if (policy == nullptr || policy->is_null()) return false;
  if (policy->type() == kube::Value::Type::kString && policy->text() == kLeaderReady) return true;
  if (policy->type() != kube::Value::Type::kString || policy->text() != kLeaderCreated) {
    Warn(warnings, lws, "spec.startupPolicy",
         "unknown startup policy (not LeaderCreated or LeaderReady); treated as LeaderCreated");
  }
  return false;
}

bool IsLeader(const Object& pod) {
  const std::string* worker_index = Find(pod.labels, kWorkerIndexLabel);
  return worker_index != nullptr && *worker_index == kLeaderWorkerIndex;
}

bool IsScheduled(const Object& pod) { return !ReadString(At(pod, {"spec", "nodeName"})).empty(); }

// Under LeaderReady the leader is scheduled alone first (its workers do not exist yet); once it
// is placed, and for the workers, the gang is the group size the LWS controller wrote on the pod
// (which follows rolling updates of the size), else the spec's.
int32_t LeaderReadyMinMember(const Object& pod, int32_t spec_size,
                             std::vector<std::string>& warnings) {
  if (IsLeader(pod) && !IsScheduled(pod)) return 1;
  const std::string* annotation = Find(pod.annotations, kSizeAnnotation);
  if (annotation == nullptr) return spec_size;
  std::optional<int64_t> size = ParseIndex(*annotation);
  if (!size.has_value() || *size == 0 || *size > INT32_MAX) {
    Warn(warnings, pod, "metadata.annotations." + std::string(kSizeAnnotation),
         "\"" + *annotation + "\" is not a group size; using the LWS's size " +
             std::to_string(spec_size));
    return spec_size;
  }
  return static_cast<int32_t>(*size);
}

// The leader alone, then the rest of the gang as workers (none while only the leader counts).
std::vector<SubGroupSpec> LeaderAndWorkers(int32_t min_member) {
  std::vector<SubGroupSpec> sub_groups = {{std::string(kLeaderSubGroup), 1, ""}};
  if (min_member > 1) sub_groups.push_back({std::string(kWorkersSubGroup), min_member - 1, ""});
  return sub_groups;
}

std::string PodSubGroup(const Object& pod, const std::vector<SubGroupSpec>& sub_groups,
                        std::vector<std::string>& warnings) {
  if (IsLeader(pod)) return std::string(kLeaderSubGroup);
  if (Find(pod.labels, kWorkerIndexLabel) == nullptr) {
    Warn(warnings, pod, "metadata.labels." + std::string(kWorkerIndexLabel),
         "missing; the pod is taken for a worker");
  }
  return sub_groups.size() > 1 ? std::string(kWorkersSubGroup) : "";
}

// pg-<lws>-<uid>-group-<index>: one PodGroup per group. Without a readable index (KAI keeps the
// LWS's name then too) the pod joins the LWS-wide name, with a warning.
std::string GroupPodGroupName(const std::string& lws_name, const Object& pod,
                              std::vector<std::string>& warnings) {
  const std::string field = "metadata.labels." + std::string(kGroupIndexLabel);
  const std::string* label = Find(pod.labels, kGroupIndexLabel);
  if (label == nullptr) {
    Warn(warnings, pod, field, "missing; the pod joins the LeaderWorkerSet-wide PodGroup");
    return lws_name;
  }
  std::optional<int64_t> index = ParseIndex(*label);
  if (!index.has_value()) {
    Warn(warnings, pod, field,
         "\"" + *label +
             "\" is not a group index; the pod joins the LeaderWorkerSet-wide "
             "PodGroup");
    return lws_name;
  }
  return lws_name + "-group-" + std::to_string(*index);
}

}  // namespace

Grouping GroupLeaderWorkerSet(const Request& request) {
  Grouping grouping = DefaultGrouping(request);
  std::vector<std::string>& warnings = grouping.warnings;
  const Object& lws = request.top;
  PodGroupSpec& pod_group = grouping.pod_group;

  const int32_t size = GroupSize(lws, warnings);
  pod_group.min_member =
      WaitsForReadyLeader(lws, warnings) ? LeaderReadyMinMember(request.pod, size, warnings) : size;
  pod_group.sub_groups = LeaderAndWorkers(pod_group.min_member);
  grouping.pod_sub_group = PodSubGroup(request.pod, pod_group.sub_groups, warnings);
  pod_group.name = GroupPodGroupName(pod_group.name, request.pod, warnings);
  return grouping;
}

}  // namespace quotient::podgrouper
