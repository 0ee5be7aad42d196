#include "simulate/workload_times.h"

#include "core/time_text.h"

namespace quotient::simulate {
namespace {

// One annotation read as a Go duration; `found` false when absent.
Result<std::optional<std::chrono::seconds>> ReadDuration(const core::ObjectMeta& meta,
                                                         std::string_view kind,
                                                         std::string_view key) {
  const auto it = meta.annotations.find(std::string(key));
  if (it == meta.annotations.end()) return std::optional<std::chrono::seconds>();
  Result<std::chrono::seconds> parsed = core::ParseGoDuration(it->second);
  const std::string where = std::string(kind) + " " + meta.Key() + ": metadata.annotations[" +
                            std::string(key) + "] \"" + it->second + "\"";
  if (!parsed.ok())
    return Result<std::optional<std::chrono::seconds>>::Error(where + ": " + parsed.message());
  if (key == kArrivalAnnotation && parsed.value().count() < 0) {
    return Result<std::optional<std::chrono::seconds>>::Error(
        where + ": an arrival cannot be before the start");
  }
  if (key == kDurationAnnotation && parsed.value().count() <= 0) {
    return Result<std::optional<std::chrono::seconds>>::Error(
        where + ": a duration must be positive (at least 1s)");
  }
  return std::optional<std::chrono::seconds>(parsed.value());
}

}  // namespace

Result<std::map<std::string, PodTimes>> ReadPodTimes(const core::ClusterObjects& objects,
                                                     const std::string& scheduler_name) {
  std::map<std::string, PodTimes> group_times;
  for (const core::PodGroupObject& group : objects.pod_groups) {
    PodTimes times;
    auto arrival = ReadDuration(group.meta, "PodGroup", kArrivalAnnotation);
    if (!arrival.ok()) return Status::Error(arrival.message());
    auto duration = ReadDuration(group.meta, "PodGroup", kDurationAnnotation);
    if (!duration.ok()) return Status::Error(duration.message());
    times.arrival = arrival.value().value_or(std::chrono::seconds(0));
    times.duration = duration.value();
    group_times[group.meta.Key()] = times;
  }
  std::map<std::string, PodTimes> out;
  for (const core::PodObject& pod : objects.pods) {
    if (pod.scheduler_name != scheduler_name) continue;
    PodTimes times;
    const auto group_name = pod.meta.annotations.find("pod-group-name");
    if (group_name != pod.meta.annotations.end()) {
      const auto group = group_times.find(pod.meta.namespace_name + "/" + group_name->second);
      if (group != group_times.end()) times = group->second;
    }
    auto arrival = ReadDuration(pod.meta, "Pod", kArrivalAnnotation);
    if (!arrival.ok()) return Status::Error(arrival.message());
    auto duration = ReadDuration(pod.meta, "Pod", kDurationAnnotation);
    if (!duration.ok()) return Status::Error(duration.message());
    if (arrival.value()) times.arrival = *arrival.value();
    if (duration.value()) times.duration = duration.value();
    if (!pod.node_name.empty()) times.arrival = std::chrono::seconds(0);
    out[pod.meta.Key()] = times;
  }
  return out;
}

}  // namespace quotient::simulate
