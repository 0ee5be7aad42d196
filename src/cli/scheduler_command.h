// `quotient scheduler`: run as the cluster's scheduler — watch the API server, schedule pods whose
// spec.schedulerName matches, bind and evict (src/service). Flags follow KAI's names where KAI has
// one (--scheduler-name, --schedule-period, --scheduler-conf, --leader-elect).
//
//   quotient scheduler [--kubeconfig FILE] [--context NAME] [--scheduler-name NAME]
//                      [--scheduler-conf FILE] [--schedule-period DURATION]
//                      [--leader-elect] [--leader-elect-namespace NS] [--lease-name NAME]
//                      [--qps N] [--burst N] [--bind-workers N]
//
// Runs until SIGTERM/SIGINT; exit code 0 then, 1 when it cannot start (configuration, API server
// unreachable for the leader election), 2 for bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace quotient::cli {

struct SchedulerFlags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "quotient";
  std::string scheduler_conf;
  std::string schedule_period = "1s";
  bool leader_elect = false;
  std::string leader_elect_namespace = "quotient-system";
  std::string lease_name = "quotient-scheduler";
  int64_t qps = 50;
  int burst = 100;
  int bind_workers = 16;
};

CLI::App* AddSchedulerCommand(CLI::App& app, SchedulerFlags& flags);
int RunScheduler(const SchedulerFlags& flags);

}  // namespace quotient::cli
