#include "nodeagent/agent.h"

#include <spdlog/spdlog.h>

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
  } else {
    observation.kernel_log_readable = false;
  }
  Result<std::vector<nodehealth::IbPortReading>> ports =
      nodehealth::ReadInfinibandPorts(options_.sysfs_root, options_.excluded_ib_devices);
  if (ports.ok()) {
    observation.ib_ports = std::move(ports).value();
  } else {
    observation.infiniband_readable = false;
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
