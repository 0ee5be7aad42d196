// KAI's DefaultGrouper (kai-reference §9): what every grouper starts from.
#include <initializer_list>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {

namespace {

constexpr std::string_view kPriorityLabel = "priorityClassName";
constexpr std::string_view kPreemptibilityLabel = "kai.scheduler/preemptibility";
constexpr std::string_view kProjectLabel = "project";
constexpr std::string_view kUserLabel = "user";

// The first value of `key` among the owners (top owner first) and then the pod.
std::string FromOwnersThenPod(const Request& request, std::string_view key) {
  const std::string k(key);
  if (auto it = request.top.labels.find(k); it != request.top.labels.end()) return it->second;
  for (auto owner = request.owners.rbegin(); owner != request.owners.rend(); ++owner) {
    if (auto it = owner->labels.find(k); it != owner->labels.end()) return it->second;
  }
  if (auto it = request.pod.labels.find(k); it != request.pod.labels.end()) return it->second;
  return "";
}

std::string Queue(const Request& request) {
  std::string queue = FromOwnersThenPod(request, request.settings.queue_label_key);
  if (!queue.empty()) return queue;
  // KAI derives the queue from the `project` label, per node pool when the pod names one.
  const std::string project = FromOwnersThenPod(request, kProjectLabel);
  if (project.empty()) return request.settings.default_queue;
  const auto pool = request.pod.labels.find(request.settings.node_pool_label_key);
  return pool == request.pod.labels.end() ? project : project + "-" + pool->second;
}

const KindDefaults* ConfiguredDefaults(const Request& request) {
  const std::map<std::string, KindDefaults>& d = request.settings.kind_defaults;
  const std::string group = request.top.group();
  const std::string kind = request.top.kind;
  if (auto it = d.find(group.empty() ? kind : kind + "." + group); it != d.end()) {
    return &it->second;
  }
  if (auto it = d.find(kind); it != d.end()) return &it->second;
  return nullptr;
}

std::string PriorityClass(const Request& request, const std::string& kind_priority,
                          std::vector<std::string>& warnings) {
  std::string label = FromOwnersThenPod(request, kPriorityLabel);
  if (!label.empty()) return label;
  const std::string spec = ReadString(At(request.pod, {"spec", "priorityClassName"}));
  if (!spec.empty()) {
    if (request.view.PriorityClassExists(spec)) return spec;
    warnings.push_back(request.pod.Describe() + ": spec.priorityClassName: PriorityClass \"" +
                       spec + "\" does not exist; using the workload's default");
  }
  const KindDefaults* configured = ConfiguredDefaults(request);
  if (configured != nullptr && !configured->priority_class.empty()) {
    return configured->priority_class;
  }
  return kind_priority.empty() ? "train" : kind_priority;
}

std::string Preemptibility(const Request& request, const std::string& kind_preemptibility,
                           std::vector<std::string>& warnings) {
  const std::string label = FromOwnersThenPod(request, kPreemptibilityLabel);
  if (label == "preemptible" || label == "non-preemptible") return label;
  if (!label.empty()) {
    warnings.push_back(request.pod.Describe() + ": label " + std::string(kPreemptibilityLabel) +
                       ": \"" + label + "\" is neither preemptible nor non-preemptible; ignored");
  }
  const KindDefaults* configured = ConfiguredDefaults(request);
  if (configured != nullptr && !configured->preemptibility.empty()) {
    return configured->preemptibility;
  }
  return kind_preemptibility;
}

}  // namespace

Grouping DefaultGrouping(const Request& request, const std::string& kind_priority,
                         const std::string& kind_preemptibility) {
  Grouping g;
  PodGroupSpec& pg = g.pod_group;
  pg.name = "pg-" + request.top.name + "-" + request.top.uid;
  pg.namespace_name = request.pod.namespace_name;
  pg.owner = request.top.AsOwner();
  pg.min_member = 1;
  pg.queue = Queue(request);
  pg.priority_class_name = PriorityClass(request, kind_priority, g.warnings);
  pg.preemptibility = Preemptibility(request, kind_preemptibility, g.warnings);
  pg.labels = request.top.labels;
  const std::string user(kUserLabel);
  if (!pg.labels.count(user)) {
    if (auto it = request.pod.labels.find(user); it != request.pod.labels.end()) {
      pg.labels[user] = it->second;
    }
  }
  // The node pool the pod asked for is the PodGroup's too.
  if (auto it = request.pod.labels.find(request.settings.node_pool_label_key);
      it != request.pod.labels.end()) {
    pg.labels[it->first] = it->second;
  }
  pg.annotations = request.top.annotations;
  if (auto it = request.pod.annotations.find(user); it != request.pod.annotations.end()) {
    pg.annotations.emplace(user, it->second);
  }
  return g;
}

}  // namespace quotient::podgrouper
