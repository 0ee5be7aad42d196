// `quotient node-agent`'s loop (issue 12): every poll it gathers what it can observe — NVML
// (nvml_collector.h), the kernel log (nodehealth/kmsg.h), InfiniBand ports from sysfs
// (nodehealth/infiniband.h) — evaluates it against the state of earlier polls
// (nodehealth/evaluate.h), saves that state on the host (so counters and windows survive a
// restart of the agent, and start over after a reboot) and publishes the result on the Node
// (node_publisher.h), or only prints it in dry-run mode.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "common/status.h"
#include "nodeagent/node_publisher.h"
#include "nodeagent/nvml_collector.h"
#include "nodehealth/evaluate.h"
#include "nodehealth/kmsg.h"
#include "nodehealth/policy.h"

namespace quotient::nodeagent {

struct AgentOptions {
  NvmlCollectorOptions nvml;
  std::string kmsg_path = "/dev/kmsg";
  std::string sysfs_root = "/sys";
  std::vector<std::string> excluded_ib_devices;  // management NICs
  std::string state_file = "/var/lib/quotient/node-agent/state.json";
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  nodehealth::Policy policy = nodehealth::DefaultPolicy();
  std::chrono::seconds poll_interval{30};
  std::optional<int> expected_gpus;
  // Without `expected_gpus`: the Node label holding the count (GPU feature discovery's), read
  // when the agent starts; "" = none. A GPU gone from the bus is then noticed even after a reboot.
  std::string expected_gpus_label = "nvidia.com/gpu.count";
  std::optional<int64_t> expected_ib_rate_gbps;
};

struct PollReport {
  nodehealth::Evaluation evaluation;
  NvmlPoll nvml;
  std::string state_note;  // how the saved state was found (first poll), or why it was not saved
};

class NodeAgent {
 public:
  // `publisher` null: dry run (nothing is written to the API server).
  NodeAgent(AgentOptions options, NodePublisher* publisher);
  ~NodeAgent();

  // Reads the boot id and the saved state. Fails only when the boot id cannot be read (the
  // state could then outlive a reboot unnoticed).
  Status Start();
  // One poll at `now_s` (seconds since the epoch): observe, evaluate, save, publish.
  PollReport PollOnce(int64_t now_s);
  // Polls every poll_interval until `stop`; `on_poll` sees each report (logging).
  void Run(std::stop_token stop, const std::function<int64_t()>& now_s,
           const std::function<void(const PollReport&)>& on_poll);

 private:
  AgentOptions options_;
  NodePublisher* publisher_;
  NvmlCollector collector_;
  std::unique_ptr<nodehealth::KernelLogTailer> kmsg_;
  nodehealth::HealthState state_;
  std::string start_note_;
  std::string kmsg_error_;  // why the kernel log could not be read, last said
};

}  // namespace quotient::nodeagent
