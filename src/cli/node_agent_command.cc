#include "cli/node_agent_command.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/service_common.h"
#include "core/time_text.h"
#include "nodeagent/agent.h"

namespace quotient::cli {

namespace {

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ReportJson(const nodeagent::PollReport& r) {
  nlohmann::json conditions = nlohmann::json::array();
  for (const nodehealth::NodeCondition& c : r.evaluation.conditions) {
    conditions.push_back({{"type", std::string(nodehealth::ConditionTypeName(c.type))},
                          {"status", std::string(nodehealth::ConditionStatusName(c.status))},
                          {"reason", c.reason},
                          {"message", c.message}});
  }
  nlohmann::json events = nlohmann::json::array();
  for (const nodehealth::HealthEvent& e : r.evaluation.events) {
    events.push_back({{"reason", e.reason}, {"message", e.message}, {"subject", e.subject}});
  }
  return nlohmann::json{{"nvml", {{"call", r.nvml.status.call}, {"detail", r.nvml.status.detail}}},
                        {"gpus", r.nvml.gpus.size()},
                        {"conditions", conditions},
                        {"gpuHealth", nodeagent::NodePublisher::GpuHealthValue(r.evaluation)},
                        {"events", events},
                        {"notSupported", r.nvml.not_supported}}
      .dump();
}

// 0: every condition False; 3: one True; 4: one Unknown (and none True).
int ExitCodeOf(const nodeagent::PollReport& r) {
  bool unknown = false;
  for (const nodehealth::NodeCondition& c : r.evaluation.conditions) {
    if (c.status == nodehealth::ConditionStatus::kTrue) return 3;
    if (c.status == nodehealth::ConditionStatus::kUnknown) unknown = true;
  }
  return unknown ? 4 : 0;
}

}  // namespace

CLI::App* AddNodeAgentCommand(CLI::App& app, NodeAgentFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "node-agent", "Watch this node's GPUs and fabric, publish faults as Node conditions");
  cmd->add_option("--node-name", flags.node_name, "This node's name (default $NODE_NAME)");
  cmd->add_option("--kubeconfig", flags.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--nvml-library", flags.nvml_library,
                  "NVML to load, a soname or a path (default libnvidia-ml.so.1)");
  cmd->add_option("--kmsg", flags.kmsg, "Kernel log to follow (default /dev/kmsg)");
  cmd->add_option("--sysfs-root", flags.sysfs_root, "sysfs mount (default /sys)");
  cmd->add_option("--exclude-ib-device", flags.excluded_ib_devices,
                  "InfiniBand device not to judge (a management NIC); repeatable");
  cmd->add_option("--state-file", flags.state_file,
                  "Where counters and windows are kept across restarts (a host path)");
  cmd->add_option("--boot-id-path", flags.boot_id_path,
                  "The kernel's boot id (a new one discards the saved state)");
  cmd->add_option("--policy-file", flags.policy_file,
                  "Policy overrides, YAML (src/nodehealth/README.md); default: the built-in table");
  cmd->add_option("--poll-interval", flags.poll_interval, "Time between polls (default 30s)");
  cmd->add_option("--nvml-deadline", flags.nvml_deadline,
                  "Longest an NVML call may take before the driver counts as unresponsive (5s)");
  cmd->add_option("--expected-gpus", flags.expected_gpus, "GPUs this node should have");
  cmd->add_option("--expected-gpus-label", flags.expected_gpus_label,
                  "Without --expected-gpus: the Node label holding the count (default "
                  "nvidia.com/gpu.count, GPU feature discovery's; \"\" = none)");
  cmd->add_option("--expected-ib-rate-gbps", flags.expected_ib_rate_gbps,
                  "Rate every InfiniBand port should run at, Gb/s");
  cmd->add_flag("--dry-run", flags.dry_run,
                "Write nothing to the API server; print each poll as a JSON line");
  cmd->add_flag("--once", flags.once, "Poll once and exit (0 healthy, 3 fault, 4 unknown)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  return cmd;
}

int RunNodeAgent(const NodeAgentFlags& flags) {
  if (std::optional<int> bad = StartLogging("node-agent", flags.log_format, flags.log_level)) {
    return *bad;
  }
  Result<std::chrono::seconds> interval = core::ParseGoDuration(flags.poll_interval);
  if (!interval.ok() || interval->count() <= 0) {
    spdlog::error("--poll-interval: expected a positive Go duration, got \"{}\"",
                  flags.poll_interval);
    return 2;
  }
  Result<std::chrono::seconds> deadline = core::ParseGoDuration(flags.nvml_deadline);
  if (!deadline.ok() || deadline->count() <= 0) {
    spdlog::error("--nvml-deadline: expected a positive Go duration, got \"{}\"",
                  flags.nvml_deadline);
    return 2;
  }
  nodeagent::AgentOptions options;
  options.nvml.library = flags.nvml_library;
  options.nvml.deadline = *deadline;
  options.kmsg_path = flags.kmsg;
  options.sysfs_root = flags.sysfs_root;
  options.excluded_ib_devices = flags.excluded_ib_devices;
  options.state_file = flags.state_file;
  options.boot_id_path = flags.boot_id_path;
  options.poll_interval = *interval;
  options.expected_gpus = flags.expected_gpus;
  options.expected_gpus_label = flags.expected_gpus_label;
  options.expected_ib_rate_gbps = flags.expected_ib_rate_gbps;
  if (!flags.policy_file.empty()) {
    std::ifstream in(flags.policy_file);
    if (!in) {
      spdlog::error("--policy-file: cannot read {}", flags.policy_file);
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    Result<nodehealth::Policy> policy = nodehealth::ParsePolicyYaml(text.str());
    if (!policy.ok()) {
      spdlog::error("--policy-file {}: {}", flags.policy_file, policy.message());
      return 1;
    }
    options.policy = std::move(policy).value();
  }

  std::unique_ptr<kubeclient::Client> client;
  std::unique_ptr<nodeagent::NodePublisher> publisher;
  if (!flags.dry_run) {
    std::string node = flags.node_name;
    if (node.empty()) {
      const char* env = std::getenv("NODE_NAME");
      node = env == nullptr ? "" : env;
    }
    if (node.empty()) {
      spdlog::error("--node-name (or $NODE_NAME) is required unless --dry-run");
      return 2;
    }
    client = ConnectToCluster(flags.kubeconfig, "", 5, 10);
    if (client == nullptr) return 1;
    publisher = std::make_unique<nodeagent::NodePublisher>(*client, node);
  }
  nodeagent::NodeAgent agent(options, publisher.get());
  if (Status started = agent.Start(); !started.ok()) {
    spdlog::error("{}", started.message());
    return 1;
  }
  const auto print = [&](const nodeagent::PollReport& r) {
    if (!r.state_note.empty()) spdlog::info("state: {}", r.state_note);
    if (flags.dry_run) std::cout << ReportJson(r) << std::endl;
    for (const nodehealth::NodeCondition& c : r.evaluation.conditions) {
      if (c.status == nodehealth::ConditionStatus::kTrue) {
        spdlog::warn("{}=True {}: {}", nodehealth::ConditionTypeName(c.type), c.reason, c.message);
      }
    }
  };
  if (flags.once) {
    const nodeagent::PollReport report = agent.PollOnce(NowSeconds());
    print(report);
    return ExitCodeOf(report);
  }
  StopOnSignal stop;
  agent.Run(stop.token(), NowSeconds, print);
  return 0;
}

}  // namespace quotient::cli
