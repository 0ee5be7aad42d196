#include "cli/scheduler_command.h"

#include <signal.h>
#include <unistd.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <atomic>
#include <random>
#include <thread>

#include "core/time_text.h"
#include "kube/scheduler_config_codec.h"
#include "kubeclient/client_factory.h"
#include "kubeclient/leader_election.h"
#include "service/scheduler_service.h"

namespace quotient::cli {
namespace {

std::atomic<bool> g_terminate{false};
void OnTerminate(int) { g_terminate = true; }

// "<host>_<random hex>", unique per replica as client-go's leader election expects.
std::string Identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  return std::string(host) + "_" + suffix;
}

}  // namespace

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
  cmd->add_option("--qps", flags.qps, "Client-side requests per second (default 50)");
  cmd->add_option("--burst", flags.burst, "Client-side burst (default 100)");
  cmd->add_option("--bind-workers", flags.bind_workers, "Concurrent binds (default 16)")
      ->check(CLI::PositiveNumber);
  return cmd;
}

int RunScheduler(const SchedulerFlags& flags) {
  // Logs go to stderr, as a container runtime expects of a service.
  spdlog::set_default_logger(spdlog::stderr_color_mt("quotient"));
  Result<std::chrono::seconds> period = core::ParseGoDuration(flags.schedule_period);
  if (!period.ok() || period->count() <= 0) {
    spdlog::error("--schedule-period: expected a positive Go duration of at least 1s, got \"{}\"",
                  flags.schedule_period);
    return 2;
  }
  service::ServiceOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.schedule_period = *period;
  options.bind_workers = flags.bind_workers;
  if (!flags.scheduler_conf.empty()) {
    Result<framework::SchedulerConfig> config = kube::LoadSchedulerConfigFile(flags.scheduler_conf);
    if (!config.ok()) {
      spdlog::error("--scheduler-conf: {}", config.message());
      return 1;
    }
    options.config = *config;
  }
  Result<kubeclient::ConnectionConfig> connection =
      kubeclient::LoadConnectionConfig(flags.kubeconfig, flags.context);
  if (!connection.ok()) {
    spdlog::error("{}", connection.message());
    return 1;
  }
  kubeclient::ClientConfig client_config;
  client_config.qps = flags.qps;
  client_config.burst = flags.burst;
  auto client = kubeclient::MakeClient(*connection, client_config);

  signal(SIGTERM, OnTerminate);
  signal(SIGINT, OnTerminate);
  std::stop_source stop;
  std::thread watcher([&] {
    while (!g_terminate) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    spdlog::info("terminating");
    stop.request_stop();
  });
  auto schedule = [&](std::stop_token token) {
    service::SchedulerService service(*client, options);
    service.Run(token);
    service::ServiceStats stats = service.Stats();
    spdlog::info("stopped after {} cycles, {} binds ({} failed), {} evictions", stats.cycles,
                 stats.binds, stats.bind_failures, stats.evictions);
  };
  int code = 0;
  if (flags.leader_elect) {
    kubeclient::LeaderElectionConfig election{flags.leader_elect_namespace, flags.lease_name,
                                              Identity()};
    kubeclient::LeaderElector elector(*client, election);
    spdlog::info("campaigning for lease {}/{} as {}", election.namespace_name, election.lease_name,
                 election.identity);
    bool clean = elector.Run(stop.get_token(), [&](std::stop_token leading) {
      spdlog::info("leading");
      schedule(leading);
    });
    if (!clean) {
      // Lost the lease: another replica may already be binding; exit so that this process
      // restarts as a follower with a fresh cache rather than acting on stale assumptions.
      spdlog::error("lost the leader lease; exiting");
      code = 1;
    }
  } else {
    schedule(stop.get_token());
  }
  g_terminate = true;
  watcher.join();
  return code;
}

}  // namespace quotient::cli
