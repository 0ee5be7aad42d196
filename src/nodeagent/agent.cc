#include "nodeagent/agent.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <mutex>

#include "nodehealth/infiniband.h"
#include "nodehealth/state.h"

namespace quotient::nodeagent {

NodeAgent::NodeAgent(AgentOptions options, NodePublisher* publisher)
    : options_(std::move(options)), publisher_(publisher), collector_(options_.nvml) {}

NodeAgent::~NodeAgent() = default;

Status NodeAgent::Start() {
  Result<std::string> boot_id = nodehealth::ReadBootId(options_.boot_id_path);
  if (!boot_id.ok()) return Status::Error("boot id: " + boot_id.message());
  nodehealth::LoadedState loaded = nodehealth::LoadState(options_.state_file, *boot_id);
  state_ = std::move(loaded.state);
  start_note_ = loaded.note;
  // A fresh log (no saved position) starts at its end: old lines describe an earlier episode
  // the agent did not see happen, and a reboot has emptied the kernel's buffer anyway.
  nodehealth::TailOptions tail;
  tail.new_log_from_end = !state_.kernel_log.offset && !state_.kernel_log.last_seq;
  kmsg_ =
      std::make_unique<nodehealth::KernelLogTailer>(options_.kmsg_path, state_.kernel_log, tail);
  if (!options_.expected_gpus && publisher_ != nullptr && !options_.expected_gpus_label.empty()) {
    Result<std::optional<std::string>> label = publisher_->Label(options_.expected_gpus_label);
    int count = 0;
    if (!label.ok()) {
      spdlog::warn("expected GPUs: {}", label.message());
    } else if (*label) {
      const std::string& text = **label;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
      if (ec == std::errc() && end == text.data() + text.size() && count >= 0) {
        options_.expected_gpus = count;
        spdlog::info("expecting {} GPUs (node label {})", count, options_.expected_gpus_label);
      } else {
        spdlog::warn("node label {}: expected a GPU count, got \"{}\"; not used",
                     options_.expected_gpus_label, text);
      }
    }
  }
  return Status::Ok();
}

PollReport NodeAgent::PollOnce(int64_t now_s) {
  PollReport report;
  report.state_note = std::move(start_note_);
  start_note_.clear();

  nodehealth::NodeObservation observation;
  observation.expected_gpu_count = options_.expected_gpus;
  observation.expected_ib_rate_gbps = options_.expected_ib_rate_gbps;
  report.nvml = collector_.Poll();
  observation.nvml = report.nvml.status;
  observation.gpus = report.nvml.gpus;

  Result<nodehealth::TailBatch> log = kmsg_->Poll();
  if (log.ok()) {
    observation.kernel_events = std::move(log->events);
    observation.kernel_log_lost_records = log->lost_records;
    kmsg_error_.clear();
  } else {
    observation.kernel_log_readable = false;
    // Said once per cause: an unprivileged container cannot open /dev/kmsg under runc or crun
    // (their device cgroup), and then SXid and kernel-only lines are not seen (docs/install.md).
    if (log.message() != kmsg_error_) {
      kmsg_error_ = log.message();
      spdlog::warn("kernel log {} unreadable: {}; judging NVML and sysfs only", options_.kmsg_path,
                   kmsg_error_);
    }
  }
  Result<std::vector<nodehealth::IbPortReading>> ports =
      nodehealth::ReadInfinibandPorts(options_.sysfs_root, options_.excluded_ib_devices);
  if (ports.ok()) {
    observation.ib_ports = std::move(ports).value();
  } else {
    observation.infiniband_readable = false;
  }

  // Only a node holding a sticky fault asks (one GET): the rest of the fleet costs nothing.
  const bool sticky = std::any_of(state_.faults.begin(), state_.faults.end(),
                                  [](const auto& f) { return f.second.active && f.second.sticky; });
  if (publisher_ != nullptr && sticky) {
    Result<std::optional<int64_t>> passed = publisher_->ValidationPassedAt();
    if (passed.ok()) {
      observation.validation_passed_at_s = *passed;
    } else {
      spdlog::warn("cannot read the remediator's validation: {}", passed.message());
    }
  }
  report.evaluation = nodehealth::Evaluate(observation, state_, options_.policy, now_s);
  state_ = report.evaluation.state;
  state_.kernel_log = kmsg_->position();
  if (Status saved = nodehealth::SaveState(options_.state_file, state_); !saved.ok()) {
    report.state_note = "state not saved: " + saved.message();
  }
  if (publisher_ != nullptr) {
    if (Status published = publisher_->Publish(report.evaluation, now_s); !published.ok()) {
      spdlog::warn("{}", published.message());
    }
  }
  return report;
}

void NodeAgent::Run(std::stop_token stop, const std::function<int64_t()>& now_s,
                    const std::function<void(const PollReport&)>& on_poll) {
  std::mutex mu;
  std::condition_variable_any wake;
  while (!stop.stop_requested()) {
    on_poll(PollOnce(now_s()));
    std::unique_lock lock(mu);
    wake.wait_for(lock, stop, options_.poll_interval, [] { return false; });
  }
}

}  // namespace quotient::nodeagent
