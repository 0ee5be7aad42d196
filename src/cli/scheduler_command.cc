#include "cli/scheduler_command.h"

#include <spdlog/spdlog.h>
#include <atomic>
#include <optional>
#include <thread>

#include "cli/service_common.h"
#include "core/time_text.h"
#include "kube/scheduler_config_codec.h"
#include "kubeclient/leader_election.h"
#include "service/dashboard.h"
#include "service/scheduler_service.h"
#include "telemetry/ops_server.h"
#include "telemetry/scheduler_metrics.h"

namespace quotient::cli {

CLI::App* AddSchedulerCommand(CLI::App& app, SchedulerFlags& flags) {
  CLI::App* cmd = app.add_subcommand("scheduler", "Run as a Kubernetes scheduler");
  cmd->add_option("--kubeconfig", flags.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", flags.context, "kubeconfig context (default: current-context)");
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Schedule pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--scheduler-conf", flags.scheduler_conf,
                  "Scheduler configuration in KAI's format (actions, tiers of plugins)");
  cmd->add_option("--schedule-period", flags.schedule_period,
                  "Longest time between cycles, a Go duration (default 1s)");
  cmd->add_flag("--leader-elect", flags.leader_elect,
                "Elect a leader among replicas on a Lease; only the leader schedules");
  cmd->add_option("--leader-elect-namespace", flags.leader_elect_namespace,
                  "Namespace of the leader-election Lease (default quotient-system)");
  cmd->add_option("--lease-name", flags.lease_name,
                  "Name of the Lease (default quotient-scheduler)");
  cmd->add_option("--nodepool-label-key,--node-pool-label-key", flags.node_pool_label_key,
                  "Node label naming a node's pool (default kai.scheduler/node-pool)");
  cmd->add_option("--partition-label-value", flags.partition_label_value,
                  "Serve only the node pool with this label value; \"\" (default) serves Nodes, "
                  "Queues and PodGroups without the label");
  cmd->add_option("--queue-label-key", flags.queue_label_key,
                  "Pod label naming its queue (default kai.scheduler/queue)");
  cmd->add_option("--listen-address", flags.listen_address,
                  "Serve /healthz, /readyz and /metrics here (default :8080; \"\" = off)");
  cmd->add_option("--metrics-namespace", flags.metrics_namespace,
                  "Prefix of the Prometheus metric names (default quotient; KAI uses kai)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  cmd->add_option("--qps", flags.qps, "Client-side requests per second (default 50)");
  cmd->add_option("--burst", flags.burst, "Client-side burst (default 100)");
  cmd->add_option("--bind-workers", flags.bind_workers, "Concurrent binds (default 16)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--wait-for-pod-grouper", flags.wait_for_pod_grouper,
                "Pods a controller owns wait for the PodGroup `quotient podgrouper` makes "
                "instead of running as groups of one (so no gang member runs alone)");
  cmd->add_option("--gpu-sharing", flags.gpu_sharing,
                  "Bind fractional pods with their GPU reservation pod, group label and "
                  "ConfigMap (default true; false binds them like any pod)");
  cmd->add_option("--resource-reservation-namespace", flags.reservation_namespace,
                  "Namespace of the GPU reservation pods (default quotient-resource-reservation)");
  cmd->add_option("--resource-reservation-image", flags.reservation_image,
                  "Image of the GPU reservation pods: this binary (default quotient:0.1.0)");
  cmd->add_option("--resource-reservation-service-account", flags.reservation_service_account,
                  "Their ServiceAccount (it patches its own pod; default: the namespace's)");
  cmd->add_option("--runtime-class-name", flags.runtime_class,
                  "Their runtimeClassName, e.g. nvidia (default: none)");
  cmd->add_option("--resource-reservation-allocation-timeout", flags.reservation_timeout,
                  "How long a reservation pod may take to publish its GPU (default 40s)");
  cmd->add_option("--resource-reservation-collect-grace", flags.reservation_grace,
                  "How long a reservation pod without fractional pods (or a fractional pod "
                  "without its reservation) is left before it is deleted (default 30s)");
  cmd->add_flag("--dashboard", flags.dashboard,
                "Serve a read-only live dashboard at /dashboard on --listen-address (queues, "
                "GPUs, pending workloads, evictions); unauthenticated, so keep that address on "
                "the cluster network");
  return cmd;
}

int RunScheduler(const SchedulerFlags& flags) {
  // Logs go to stderr, as a container runtime expects of a service.
  if (std::optional<int> bad = StartLogging("scheduler", flags.log_format, flags.log_level)) {
    return *bad;
  }
  Result<std::chrono::seconds> period = core::ParseGoDuration(flags.schedule_period);
  if (!period.ok() || period->count() <= 0) {
    spdlog::error("--schedule-period: expected a positive Go duration of at least 1s, got \"{}\"",
                  flags.schedule_period);
    return 2;
  }
  if (Status prefix = telemetry::ValidateMetricsPrefix(flags.metrics_namespace); !prefix.ok()) {
    spdlog::error("--metrics-namespace: {}", prefix.message());
    return 2;
  }
  service::ServiceOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.schedule_period = *period;
  options.bind_workers = flags.bind_workers;
  options.shard.label_key = flags.node_pool_label_key;
  options.shard.value = flags.partition_label_value;
  options.queue_label_key = flags.queue_label_key;
  options.wait_for_pod_grouper = flags.wait_for_pod_grouper;
  if (flags.gpu_sharing) {
    Result<std::chrono::seconds> timeout = core::ParseGoDuration(flags.reservation_timeout);
    if (!timeout.ok() || timeout->count() <= 0) {
      spdlog::error(
          "--resource-reservation-allocation-timeout: expected a positive Go duration, got "
          "\"{}\"",
          flags.reservation_timeout);
      return 2;
    }
    Result<std::chrono::seconds> grace = core::ParseGoDuration(flags.reservation_grace);
    if (!grace.ok() || grace->count() <= 0) {
      spdlog::error(
          "--resource-reservation-collect-grace: expected a positive Go duration, got \"{}\"",
          flags.reservation_grace);
      return 2;
    }
    service::GpuSharingOptions sharing;
    sharing.collect_grace = *grace;
    sharing.reservation_namespace = flags.reservation_namespace;
    sharing.reservation_image = flags.reservation_image;
    sharing.reservation_service_account = flags.reservation_service_account;
    sharing.runtime_class = flags.runtime_class;
    sharing.allocation_timeout = *timeout;
    options.gpu_sharing = sharing;
  }
  if (!flags.scheduler_conf.empty()) {
    Result<framework::SchedulerConfig> config = kube::LoadSchedulerConfigFile(flags.scheduler_conf);
    if (!config.ok()) {
      spdlog::error("--scheduler-conf: {}", config.message());
      return 1;
    }
    options.config = *config;
    options.config_path = flags.scheduler_conf;
  }
  telemetry::SchedulerMetrics metrics(flags.metrics_namespace);
  options.metrics = &metrics;
  if (flags.dashboard && flags.listen_address.empty()) {
    spdlog::error("--dashboard: it is served on --listen-address, which is off (\"\")");
    return 2;
  }
  // The dashboard outlives each term as leader: a replica that stops leading shows its last
  // state and says it no longer leads.
  service::Dashboard dashboard;
  if (flags.dashboard) options.dashboard = &dashboard;
  // Readiness: the leader once its cache has synced; a standby replica is ready to take over.
  std::atomic<service::SchedulerService*> active{nullptr};
  std::optional<telemetry::OpsServer> ops;
  const bool serving = ServeOps(
      ops, flags.listen_address,
      [&]() -> std::pair<bool, std::string> {
        service::SchedulerService* s = active.load();
        if (s == nullptr) return {true, "standing by"};
        if (!s->Ready()) return {false, "waiting for the cluster cache to sync"};
        return {true, "ok"};
      },
      metrics.registry(),
      [&](telemetry::OpsServer& server) {
        return flags.dashboard ? service::ServeDashboard(server, dashboard) : Status::Ok();
      });
  if (!serving) return 1;
  if (flags.dashboard && ops) {
    spdlog::info("serving the dashboard at /dashboard on port {} (read-only, unauthenticated)",
                 ops->Port());
  }
  auto client = ConnectToCluster(flags.kubeconfig, flags.context, flags.qps, flags.burst);
  if (client == nullptr) return 1;

  StopOnSignal stop;
  auto schedule = [&](std::stop_token token) {
    service::SchedulerService service(*client, options);
    active = &service;
    metrics.SetLeader(true);
    dashboard.SetLeading(true);
    service.Run(token);
    dashboard.SetLeading(false);
    metrics.SetLeader(false);
    active = nullptr;
    service::ServiceStats stats = service.Stats();
    spdlog::info("stopped after {} cycles, {} binds ({} failed), {} evictions", stats.cycles,
                 stats.binds, stats.bind_failures, stats.evictions);
  };
  std::optional<kubeclient::LeaderElectionConfig> election;
  if (flags.leader_elect) {
    election = kubeclient::LeaderElectionConfig{flags.leader_elect_namespace, flags.lease_name,
                                                LeaderIdentity()};
  }
  return RunLeading(*client, election, stop.token(), schedule);
}

}  // namespace quotient::cli
