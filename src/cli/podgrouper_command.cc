#include "cli/podgrouper_command.h"

#include <spdlog/spdlog.h>

#include "cli/service_common.h"
#include "core/time_text.h"
#include "kube/value.h"
#include "podgrouper/pod_group_codec.h"
#include "podgrouper_controller/controller.h"

namespace quotient::cli {

namespace {

// KAI's default-priorities ConfigMap: data.types, a JSON list.
Result<std::map<std::string, podgrouper::KindDefaults>> ReadKindDefaults(
    kubeclient::Client& client, const std::string& namespace_name, const std::string& name) {
  using R = Result<std::map<std::string, podgrouper::KindDefaults>>;
  const std::string where = "ConfigMap " + namespace_name + "/" + name;
  auto raw = client.Get(kubeclient::resources::ConfigMaps(), namespace_name, name);
  if (!raw.ok()) return R::Error(where + ": " + raw.error().Describe());
  Result<kube::Value> doc = kube::ParseJson(raw.value().json);
  if (!doc.ok()) return R::Error(where + ": " + doc.message());
  const kube::Value* data = doc.value().Find("data");
  const kube::Value* types = data == nullptr ? nullptr : data->Find("types");
  if (types == nullptr || types->type() != kube::Value::Type::kString) {
    return R::Error(where + ": data.types: missing");
  }
  R parsed = podgrouper::ParseKindDefaults(types->text());
  if (!parsed.ok()) return R::Error(where + ": data." + parsed.message());
  return parsed;
}

}  // namespace

CLI::App* AddPodGrouperCommand(CLI::App& app, PodGrouperFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "podgrouper", "Run the pod grouper: create the PodGroup each workload's pods need");
  cmd->add_option("--kubeconfig", flags.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", flags.context, "kubeconfig context (default: current-context)");
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Group pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--queue-label-key", flags.queue_label_key,
                  "Label naming a workload's queue (default kai.scheduler/queue)");
  cmd->add_option("--nodepool-label-key,--node-pool-label-key", flags.node_pool_label_key,
                  "Label naming a node pool (default kai.scheduler/node-pool)");
  cmd->add_option("--knative-gang-schedule", flags.knative_gang_schedule,
                  "Gang-schedule Knative revisions by their min-scale (default true)");
  cmd->add_option("--default-priorities-configmap-name", flags.default_priorities_name,
                  "ConfigMap with per-kind default priorities (KAI's format, key `types`)");
  cmd->add_option("--default-priorities-configmap-namespace", flags.default_priorities_namespace,
                  "Its namespace");
  cmd->add_option("--resync-period", flags.resync_period,
                  "Regroup every pod this often, a Go duration (default 30s)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  cmd->add_option("--qps", flags.qps, "Client-side requests per second (default 50)");
  cmd->add_option("--burst", flags.burst, "Client-side burst (default 100)");
  return cmd;
}

int RunPodGrouper(const PodGrouperFlags& flags) {
  if (std::optional<int> bad = StartLogging("podgrouper", flags.log_format, flags.log_level)) {
    return *bad;
  }
  Result<std::chrono::seconds> resync = core::ParseGoDuration(flags.resync_period);
  if (!resync.ok() || resync->count() <= 0) {
    spdlog::error("--resync-period: expected a positive Go duration of at least 1s, got \"{}\"",
                  flags.resync_period);
    return 2;
  }
  if (flags.default_priorities_name.empty() != flags.default_priorities_namespace.empty()) {
    spdlog::error(
        "--default-priorities-configmap-name and --default-priorities-configmap-namespace go "
        "together");
    return 2;
  }
  auto client = ConnectToCluster(flags.kubeconfig, flags.context, flags.qps, flags.burst);
  if (client == nullptr) return 1;

  podgrouper_controller::ControllerOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.resync = *resync;
  options.settings.queue_label_key = flags.queue_label_key;
  options.settings.node_pool_label_key = flags.node_pool_label_key;
  options.settings.knative_gang = flags.knative_gang_schedule;
  if (!flags.default_priorities_name.empty()) {
    auto defaults = ReadKindDefaults(*client, flags.default_priorities_namespace,
                                     flags.default_priorities_name);
    if (!defaults.ok()) {
      spdlog::error("{}", defaults.message());
      return 1;
    }
    options.settings.kind_defaults = std::move(defaults).value();
  }
  StopOnSignal stop;
  {
    podgrouper_controller::PodGrouperController controller(*client, options);
    spdlog::info("grouping the pods of scheduler {}", flags.scheduler_name);
    controller.Run(stop.token());
    const podgrouper_controller::ControllerStats stats = controller.Stats();
    spdlog::info("stopped after {} reconciles ({} failed), {} PodGroups created, {} updated",
                 stats.reconciles, stats.failures, stats.pod_groups_created,
                 stats.pod_groups_updated);
  }
  return 0;
}

}  // namespace quotient::cli
