#include "cli/remediator_command.h"

#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "cli/service_common.h"
#include "core/time_text.h"
#include "kubeclient/leader_election.h"
#include "remediation/config_yaml.h"
#include "remediator/controller.h"
#include "telemetry/ops_server.h"

namespace quotient::cli {

namespace {

std::string FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

CLI::App* AddRemediatorCommand(CLI::App& app, RemediatorFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "remediator", "Cordon, drain, repair, validate and return nodes with GPU or fabric faults");
  cmd->add_option("--kubeconfig", flags.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", flags.context, "kubeconfig context (default: current-context)");
  cmd->add_option("--config", flags.config_file,
                  "Policy, rails and steps, YAML (src/remediation/README.md); default: built in");
  cmd->add_option("--namespace", flags.namespace_name,
                  "Namespace of the step and validation pods and incident records "
                  "(default $POD_NAMESPACE, else quotient-system)");
  cmd->add_option("--step-image", flags.step_image,
                  "Image of the step and validation pods (default $QUOTIENT_IMAGE)");
  cmd->add_option("--step-service-account", flags.step_service_account,
                  "ServiceAccount of the step and validation pods");
  cmd->add_option("--step-image-pull-secret", flags.step_image_pull_secrets,
                  "imagePullSecret of the step and validation pods (a private registry); "
                  "repeatable");
  cmd->add_option("--runtime-class-name", flags.runtime_class,
                  "runtimeClassName of the step and validation pods (e.g. nvidia)");
  cmd->add_option("--resync-period", flags.resync_period,
                  "Longest time between two reconciles (default 30s)");
  cmd->add_flag("--dry-run", flags.dry_run,
                "Change nothing: Events and log lines say what would be done");
  cmd->add_flag("--leader-elect", flags.leader_elect,
                "Act only while holding the Lease (several replicas)");
  cmd->add_option("--leader-elect-namespace", flags.leader_elect_namespace,
                  "Namespace of the Lease (default: --namespace)");
  cmd->add_option("--lease-name", flags.lease_name, "Name of the Lease");
  cmd->add_option("--listen-address", flags.listen_address,
                  "Where /healthz, /readyz and /metrics are served (\"\" = nowhere)");
  cmd->add_option("--qps", flags.qps, "Client-side requests per second (default 20)");
  cmd->add_option("--burst", flags.burst, "Client-side burst (default 40)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  return cmd;
}

int RunRemediator(const RemediatorFlags& flags) {
  if (std::optional<int> bad = StartLogging("remediator", flags.log_format, flags.log_level)) {
    return *bad;
  }
  Result<std::chrono::seconds> resync = core::ParseGoDuration(flags.resync_period);
  if (!resync.ok() || resync->count() <= 0) {
    spdlog::error("--resync-period: expected a positive Go duration, got \"{}\"",
                  flags.resync_period);
    return 2;
  }
  remediator::RemediatorOptions options;
  if (!flags.config_file.empty()) {
    std::ifstream in(flags.config_file);
    if (!in) {
      spdlog::error("--config: cannot read {}", flags.config_file);
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    Result<remediation::Config> config = remediation::ReadConfigYaml(text.str());
    if (!config.ok()) {
      spdlog::error("--config {}: {}", flags.config_file, config.message());
      return 1;
    }
    options.config = std::move(config).value();
  }
  if (flags.dry_run) options.config.dry_run = true;
  options.resync = *resync;
  std::string ns = flags.namespace_name;
  if (ns.empty()) ns = FromEnv("POD_NAMESPACE");
  if (ns.empty()) ns = "quotient-system";
  std::string image = flags.step_image.empty() ? FromEnv("QUOTIENT_IMAGE") : flags.step_image;
  if (image.empty()) {
    spdlog::error("--step-image (or $QUOTIENT_IMAGE) is required: the step pods run it");
    return 2;
  }
  options.executor.pods = {ns, image, flags.step_service_account, flags.runtime_class,
                           flags.step_image_pull_secrets};
  options.identity = LeaderIdentity();

  prometheus::Registry registry;
  std::atomic<remediator::Remediator*> active{nullptr};
  std::optional<telemetry::OpsServer> ops;
  const bool serving = ServeOps(
      ops, flags.listen_address,
      [&]() -> std::pair<bool, std::string> {
        remediator::Remediator* r = active.load();
        if (r == nullptr) return {true, "standing by"};
        if (!r->Ready()) return {false, "waiting for the caches to sync"};
        return {true, "ok"};
      },
      registry);
  if (!serving) return 1;
  auto client = ConnectToCluster(flags.kubeconfig, flags.context, flags.qps, flags.burst);
  if (client == nullptr) return 1;

  StopOnSignal stop;
  bool registered = false;
  auto remediate = [&](std::stop_token token) {
    // The metrics register once per process; a replica that leads again reuses them.
    remediator::Remediator remediator(*client, options, registered ? nullptr : &registry);
    registered = true;
    active = &remediator;
    remediator.Run(token);
    active = nullptr;
    const remediator::RemediatorStats stats = remediator.Stats();
    spdlog::info("stopped after {} reconciles", stats.reconciles);
  };
  std::optional<kubeclient::LeaderElectionConfig> election;
  if (flags.leader_elect) {
    election = kubeclient::LeaderElectionConfig{
        flags.leader_elect_namespace.empty() ? ns : flags.leader_elect_namespace, flags.lease_name,
        options.identity};
  }
  return RunLeading(*client, election, stop.token(), remediate);
}

}  // namespace quotient::cli
