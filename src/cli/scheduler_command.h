// `quotient scheduler`: run as the cluster's scheduler — watch the API server, schedule pods whose
// spec.schedulerName matches, bind and evict (src/service). Flags follow KAI's names and defaults
// where KAI has one (kai-reference §8.3: --scheduler-name, --schedule-period, --scheduler-conf,
// --leader-elect, --nodepool-label-key, --partition-label-value, --queue-label-key,
// --metrics-namespace, --listen-address, --qps); --burst defaults to 100 (KAI: 300).
//
//   quotient scheduler [--kubeconfig FILE] [--context NAME] [--scheduler-name NAME]
//                      [--scheduler-conf FILE] [--schedule-period DURATION]
//                      [--leader-elect] [--leader-elect-namespace NS] [--lease-name NAME]
//                      [--nodepool-label-key KEY] [--partition-label-value VALUE]
//                      [--queue-label-key KEY] [--listen-address ADDR]
//                      [--metrics-namespace PREFIX] [--log-format text|json] [--log-level L]
//                      [--qps N] [--burst N] [--bind-workers N] [--wait-for-pod-grouper]
//                      [--gpu-sharing=true|false] [--resource-reservation-namespace NS]
//                      [--resource-reservation-image IMAGE]
//                      [--resource-reservation-service-account NAME]
//                      [--runtime-class-name NAME]
//                      [--resource-reservation-allocation-timeout DURATION]
//                      [--resource-reservation-collect-grace DURATION]
//                      [--dashboard]
//
// With --gpu-sharing (default true) a fractional pod is bound as KAI's binder binds it: its
// GPU's reservation pod, group label and ConfigMap first (service/gpu_sharing_binder.h).
//
// Serves /healthz, /readyz and /metrics on --listen-address (default :8080; "" turns it off);
// with --dashboard also the live dashboard, /dashboard and /dashboard/state (docs/dashboard.md).
// Runs until SIGTERM/SIGINT: the cycle in progress finishes, binds already handed out are sent,
// the Lease is released; exit code 0 then, 1 when it cannot start (configuration, port in use)
// or lost its Lease, 2 for bad usage.
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
  std::string node_pool_label_key = "kai.scheduler/node-pool";
  std::string partition_label_value;
  std::string queue_label_key = "kai.scheduler/queue";
  std::string listen_address = ":8080";
  std::string metrics_namespace = "quotient";
  std::string log_format = "text";
  std::string log_level = "info";
  int64_t qps = 50;
  int burst = 100;
  int bind_workers = 16;
  bool wait_for_pod_grouper = false;
  bool gpu_sharing = true;
  std::string reservation_namespace = "quotient-resource-reservation";
  std::string reservation_image = "quotient:0.1.0";
  std::string reservation_service_account;
  std::string runtime_class;
  std::string reservation_timeout = "40s";
  std::string reservation_grace = "30s";
  bool dashboard = false;
};

CLI::App* AddSchedulerCommand(CLI::App& app, SchedulerFlags& flags);
int RunScheduler(const SchedulerFlags& flags);

}  // namespace quotient::cli
