// `quotient node-agent`: GPU and fabric health of one node, published on its Node (issue 12;
// src/nodeagent). Runs as a DaemonSet with read access to /dev/kmsg, /sys and NVML.
//
//   quotient node-agent [--node-name NAME] [--kubeconfig FILE] [--nvml-library PATH]
//                       [--kmsg PATH] [--sysfs-root DIR] [--exclude-ib-device DEV ...]
//                       [--state-file PATH] [--boot-id-path PATH] [--policy-file YAML]
//                       [--poll-interval 30s] [--nvml-deadline 5s] [--expected-gpus N]
//                       [--expected-gpus-label KEY] [--expected-ib-rate-gbps N]
//                       [--dry-run] [--once]
//                       [--log-format text|json] [--log-level L]
//
// --dry-run writes nothing to the API server: each poll prints its conditions, per-GPU health
// and the NVML calls this driver does not support as one JSON line on stdout. --once polls once
// and exits (0 when every condition is False, 3 when one is True, 4 when one is Unknown).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace quotient::cli {

struct NodeAgentFlags {
  std::string node_name;
  std::string kubeconfig;
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string kmsg = "/dev/kmsg";
  std::string sysfs_root = "/sys";
  std::vector<std::string> excluded_ib_devices;
  std::string state_file = "/var/lib/quotient/node-agent/state.json";
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  std::string policy_file;
  std::string poll_interval = "30s";
  std::string nvml_deadline = "5s";
  std::optional<int> expected_gpus;
  std::string expected_gpus_label = "nvidia.com/gpu.count";
  std::optional<int64_t> expected_ib_rate_gbps;
  bool dry_run = false;
  bool once = false;
  std::string log_format = "text";
  std::string log_level = "info";
};

CLI::App* AddNodeAgentCommand(CLI::App& app, NodeAgentFlags& flags);
int RunNodeAgent(const NodeAgentFlags& flags);

}  // namespace quotient::cli
