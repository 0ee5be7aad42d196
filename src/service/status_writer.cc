#include "service/status_writer.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "core/time_text.h"

namespace quotient::service {
namespace {

std::pair<std::string, std::string> Split(const std::string& key) {
  auto slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

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
    auto [ns, name] = Split(group);
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
  auto [ns, name] = Split(pod);
  events_.Record({{"v1", "Pod", ns, name, uid},
                  "Normal",
                  "Scheduled",
                  "Binding",
                  "Successfully assigned " + pod + " to " + node});
  std::lock_guard lock(mu_);
  queued_.erase(pod);
  written_.erase(pod);
}

void StatusWriter::PodEvicted(const std::string& pod, const std::string& uid,
                              const std::string& action, const std::string& reason) {
  auto [ns, name] = Split(pod);
  events_.Record({{"v1", "Pod", ns, name, uid},
                  "Normal",
                  "Evict",
                  "Preempting",
                  "Evicted by " + action + ": " + reason});
}

void StatusWriter::QueueStatus(const std::string& queue, const std::string& status_json) {
  std::lock_guard lock(mu_);
  auto written = written_queues_.find(queue);
  if (written != written_queues_.end() && written->second == status_json) {
    queued_queues_.erase(queue);
    return;
  }
  queued_queues_[queue] = status_json;
  ready_.notify_one();
}

void StatusWriter::Retain(const std::set<std::string>& still_pending) {
  std::lock_guard lock(mu_);
  std::erase_if(written_, [&](const auto& entry) { return !still_pending.contains(entry.first); });
}

void StatusWriter::Loop(std::stop_token stop) {
  for (;;) {
    std::pair<std::string, std::string> next;
    bool is_queue = false;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, stop, [this] { return !queued_.empty() || !queued_queues_.empty(); });
      if (stop.stop_requested()) return;
      // Queues first: few, and what a person checks first.
      auto& source = queued_queues_.empty() ? queued_ : queued_queues_;
      is_queue = !queued_queues_.empty();
      auto it = source.begin();
      next = *it;
      source.erase(it);
    }
    if (is_queue) {
      WriteQueue(next.first, next.second);
    } else {
      WritePending(next.first, next.second);
    }
  }
}

void StatusWriter::WriteQueue(const std::string& queue, const std::string& status_json) {
  // A merge patch of the status subresource: our fields replace what they were, others stay.
  std::string patch = R"({"status":)" + status_json + "}";
  auto result = client_.Patch(kubeclient::resources::Queues(), "", queue,
                              kubeclient::PatchType::kMerge, patch, "status");
  std::lock_guard lock(mu_);
  if (!result.ok()) {
    if (!result.Is(kubeclient::ApiReason::kNotFound)) {
      spdlog::warn("queue {} status: {}", queue, result.error().Describe());
    }
    return;
  }
  written_queues_[queue] = status_json;
}

void StatusWriter::WritePending(const std::string& pod, const std::string& message) {
  auto [ns, name] = Split(pod);
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
