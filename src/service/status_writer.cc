#include "service/status_writer.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <optional>

#include "core/time_text.h"
#include "service/object_key.h"

namespace quotient::service {
namespace {}  // namespace

StatusWriter::StatusWriter(kubeclient::Client& client, std::string scheduler_name)
    : client_(client), events_(client, std::move(scheduler_name), "quotient") {}

StatusWriter::~StatusWriter() { Stop(); }

void StatusWriter::Start() {
  events_.Start();
  thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

void StatusWriter::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    ready_.notify_all();
    thread_.join();
  }
}

void StatusWriter::PodPending(const std::string& pod, const std::string& group,
                              const std::string& reason, bool mark_unschedulable) {
  if (!group.empty()) {
    auto [ns, name] = SplitKey(group);
    events_.Record({{"scheduling.run.ai/v2alpha2", "PodGroup", ns, name, ""},
                    "Warning",
                    "Unschedulable",
                    "Scheduling",
                    reason});
  }
  if (!mark_unschedulable) return;
  std::lock_guard lock(mu_);
  auto written = written_.find(pod);
  if (written != written_.end() && written->second == reason) {
    queued_.erase(pod);  // already says so
    return;
  }
  queued_[pod] = reason;
  ready_.notify_one();
}

void StatusWriter::PodBound(const std::string& pod, const std::string& uid,
                            const std::string& node) {
  auto [ns, name] = SplitKey(pod);
  events_.Record({{"v1", "Pod", ns, name, uid},
                  "Normal",
                  "Scheduled",
                  "Binding",
                  "Successfully assigned " + pod + " to " + node});
  std::lock_guard lock(mu_);
  queued_.erase(pod);
  written_.erase(pod);
}

void StatusWriter::PodBindFailed(const std::string& pod, const std::string& uid,
                                 const std::string& why) {
  auto [ns, name] = SplitKey(pod);
  // Repeats of the same message fold into one Event series (the recorder's aggregation).
  events_.Record({{"v1", "Pod", ns, name, uid}, "Warning", "FailedBinding", "Binding", why});
}

void StatusWriter::PodEvicted(const std::string& pod, const std::string& uid,
                              const std::string& action, const std::string& reason) {
  auto [ns, name] = SplitKey(pod);
  events_.Record({{"v1", "Pod", ns, name, uid},
                  "Normal",
                  "Evict",
                  "Preempting",
                  "Evicted by " + action + ": " + reason});
}

void StatusWriter::PodPipelined(const std::string& pod, const std::string& uid,
                                const std::string& node, const std::string& reason) {
  auto [ns, name] = SplitKey(pod);
  std::string note = "Pod " + pod + " is pipelined to node " + node;
  if (!reason.empty()) note += ": " + reason;
  events_.Record({{"v1", "Pod", ns, name, uid}, "Normal", "Pipelined", "Scheduling", note});
}

void StatusWriter::PodGroupEvent(const std::string& group, const std::string& type,
                                 const std::string& reason, const std::string& note) {
  auto [ns, name] = SplitKey(group);
  events_.Record(
      {{"scheduling.run.ai/v2alpha2", "PodGroup", ns, name, ""}, type, reason, "Scheduling", note});
}

void StatusWriter::QueueEvent(const std::string& queue, const std::string& type,
                              const std::string& reason, const std::string& note) {
  events_.Record(
      {{"scheduling.run.ai/v2", "Queue", "", queue, ""}, type, reason, "Scheduling", note});
}

void StatusWriter::QueueStatus(const std::string& queue, const std::string& status_json) {
  Enqueue({kubeclient::resources::Queues(), queue, "status", R"({"status":)" + status_json + "}",
           status_json});
}

void StatusWriter::PodGroupStatus(const std::string& group, const std::string& status_json) {
  Enqueue({kubeclient::resources::PodGroups(), group, "status", R"({"status":)" + status_json + "}",
           status_json});
}

void StatusWriter::PodGroupAnnotations(const std::string& group,
                                       const std::string& annotations_json) {
  // Not remembered: each change is written once, as it comes.
  Enqueue({kubeclient::resources::PodGroups(), group, "",
           R"({"metadata":{"annotations":)" + annotations_json + "}}", ""});
}

void StatusWriter::Enqueue(ObjectPatch patch) {
  std::string id = patch.resource.plural + "/" + patch.key + "/" + patch.subresource;
  std::lock_guard lock(mu_);
  if (!patch.remember.empty()) {
    auto written = written_objects_.find(id);
    if (written != written_objects_.end() && written->second == patch.remember) {
      queued_objects_.erase(id);  // already says so
      return;
    }
  }
  queued_objects_[id] = std::move(patch);
  ready_.notify_one();
}

void StatusWriter::Retain(const std::set<std::string>& still_pending) {
  std::lock_guard lock(mu_);
  std::erase_if(written_, [&](const auto& entry) { return !still_pending.contains(entry.first); });
}

void StatusWriter::Loop(std::stop_token stop) {
  for (;;) {
    std::optional<ObjectPatch> object;
    std::pair<std::string, std::string> pod;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, stop, [this] { return !queued_.empty() || !queued_objects_.empty(); });
      if (stop.stop_requested()) return;
      // Queues and PodGroups first: few, and what a person checks first.
      if (!queued_objects_.empty()) {
        object = std::move(queued_objects_.begin()->second);
        queued_objects_.erase(queued_objects_.begin());
      } else {
        pod = *queued_.begin();
        queued_.erase(queued_.begin());
      }
    }
    if (object) {
      WriteObject(*object);
    } else {
      WritePending(pod.first, pod.second);
    }
  }
}

void StatusWriter::WriteObject(const ObjectPatch& patch) {
  auto [ns, name] = SplitKey(patch.key);
  // A merge patch: our fields replace what they were, others stay.
  auto result = client_.Patch(patch.resource, ns, name, kubeclient::PatchType::kMerge, patch.patch,
                              patch.subresource);
  std::lock_guard lock(mu_);
  if (!result.ok()) {
    if (!result.Is(kubeclient::ApiReason::kNotFound)) {
      spdlog::warn("{} {}: {}", patch.resource.plural, patch.key, result.error().Describe());
    }
    return;
  }
  if (!patch.remember.empty()) {
    written_objects_[patch.resource.plural + "/" + patch.key + "/" + patch.subresource] =
        patch.remember;
  }
}

void StatusWriter::WritePending(const std::string& pod, const std::string& message) {
  auto [ns, name] = SplitKey(pod);
  std::string now = core::FormatRfc3339(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  // Pod conditions merge by type: this touches PodScheduled only.
  nlohmann::json patch = {{"status",
                           {{"conditions",
                             {{{"type", "PodScheduled"},
                               {"status", "False"},
                               {"reason", "Unschedulable"},
                               {"message", message},
                               {"lastTransitionTime", now}}}}}}};
  auto result = client_.Patch(kubeclient::resources::Pods(), ns, name,
                              kubeclient::PatchType::kStrategicMerge, patch.dump(), "status");
  std::lock_guard lock(mu_);
  if (!result.ok()) {
    // Gone already, or the server is away: the next cycle says it again if it still holds.
    if (!result.Is(kubeclient::ApiReason::kNotFound)) {
      spdlog::warn("pod {} status: {}", pod, result.error().Describe());
    }
    return;
  }
  written_[pod] = message;
}

}  // namespace quotient::service
