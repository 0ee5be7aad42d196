// `quotient remediator`: cordons, drains, repairs, validates and returns nodes whose agent
// reports a fault (issue 12; src/remediator, src/remediation/README.md for the state machine and
// the configuration).
//
//   quotient remediator [--kubeconfig FILE] [--context NAME] [--config YAML]
//                       [--namespace NS] [--step-image IMAGE] [--step-service-account SA]
//                       [--step-image-pull-secret NAME ...] [--runtime-class-name NAME]
//                       [--resync-period 30s] [--dry-run]
//                       [--leader-elect] [--leader-elect-namespace NS] [--lease-name NAME]
//                       [--listen-address :8080] [--qps 20] [--burst 40]
//                       [--log-format text|json] [--log-level L]
//
// --namespace holds the step and validation pods, Jobs and incident records (default
// $POD_NAMESPACE, else quotient-system); --step-image is the image they run (default
// $QUOTIENT_IMAGE, required otherwise). --dry-run overrides the config's dryRun: Events and
// "would ..." notes only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace quotient::cli {

struct RemediatorFlags {
  std::string kubeconfig;
  std::string context;
  std::string config_file;
  std::string namespace_name;
  std::string step_image;
  std::string step_service_account;
  std::string runtime_class;
  std::vector<std::string> step_image_pull_secrets;
  std::string resync_period = "30s";
  bool dry_run = false;
  bool leader_elect = false;
  std::string leader_elect_namespace;
  std::string lease_name = "quotient-remediator";
  std::string listen_address = ":8080";
  int64_t qps = 20;
  int burst = 40;
  std::string log_format = "text";
  std::string log_level = "info";
};

CLI::App* AddRemediatorCommand(CLI::App& app, RemediatorFlags& flags);
int RunRemediator(const RemediatorFlags& flags);

}  // namespace quotient::cli
