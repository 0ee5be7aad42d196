// `quotient podgrouper`: the pod grouper controller (src/podgrouper_controller) against a live
// cluster. Flags follow KAI's pod-grouper where it has one (kai-reference §8.3):
//
//   quotient podgrouper [--kubeconfig FILE] [--context NAME] [--scheduler-name NAME]
//                       [--queue-label-key KEY] [--nodepool-label-key KEY]
//                       [--knative-gang-schedule=true|false]
//                       [--default-priorities-configmap-name NAME
//                        --default-priorities-configmap-namespace NS]
//                       [--resync-period DURATION] [--log-format text|json] [--log-level L]
//                       [--qps N] [--burst N]
//
// Runs until SIGTERM/SIGINT; exit code 0 then, 1 when it cannot start (no cluster, an unreadable
// default-priorities ConfigMap), 2 for bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace quotient::cli {

struct PodGrouperFlags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "quotient";
  std::string queue_label_key = "kai.scheduler/queue";
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  bool knative_gang_schedule = true;
  std::string default_priorities_name;
  std::string default_priorities_namespace;
  std::string resync_period = "30s";
  std::string log_format = "text";
  std::string log_level = "info";
  int64_t qps = 50;
  int burst = 100;
};

CLI::App* AddPodGrouperCommand(CLI::App& app, PodGrouperFlags& flags);
int RunPodGrouper(const PodGrouperFlags& flags);

}  // namespace quotient::cli
