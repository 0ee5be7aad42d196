#include "cli/webhook_command.h"

#include <spdlog/spdlog.h>

#include "cli/service_common.h"
#include "webhook/webhook_server.h"

namespace quotient::cli {

CLI::App* AddWebhookCommand(CLI::App& app, WebhookFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "webhook", "Run the admission webhook that checks and wires GPU-sharing pods (TLS)");
  cmd->add_option("--listen-address", flags.listen_address,
                  "HTTPS address, host:port (default :9443)");
  cmd->add_option("--tls-cert-file", flags.certificate_file,
                  "Serving certificate, PEM (re-read when it changes)")
      ->required();
  cmd->add_option("--tls-private-key-file", flags.key_file, "Its private key, PEM")->required();
  cmd->add_option("--scheduler-name", flags.scheduler_name,
                  "Review pods with this spec.schedulerName (default quotient)");
  cmd->add_option("--gpu-sharing", flags.gpu_sharing,
                  "Whether pods may share GPUs (gpu-fraction, gpu-memory); default true");
  cmd->add_option("--interposer-host-dir", flags.interposer_host_dir,
                  "Node folder holding libquotient_gpu_interposer.so (default "
                  "/var/lib/quotient/interposer)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  return cmd;
}

int RunWebhook(const WebhookFlags& flags) {
  if (std::optional<int> bad = StartLogging("webhook", flags.log_format, flags.log_level)) {
    return *bad;
  }
  webhook::WebhookServerOptions options;
  options.listen_address = flags.listen_address;
  options.certificate_file = flags.certificate_file;
  options.key_file = flags.key_file;
  options.settings.scheduler_name = flags.scheduler_name;
  options.settings.gpu_sharing_enabled = flags.gpu_sharing;
  options.settings.interposer_host_dir = flags.interposer_host_dir;
  StopOnSignal stop;
  webhook::WebhookServer server(options);
  if (Status started = server.Start(); !started.ok()) {
    spdlog::error("{}", started.message());
    return 1;
  }
  spdlog::info("reviewing the pods of scheduler {} on port {} (GPU sharing {})",
               flags.scheduler_name, server.Port(), flags.gpu_sharing ? "on" : "off");
  stop.Wait();
  server.Stop();
  const webhook::WebhookStats stats = server.Stats();
  spdlog::info("stopped after {} reviews: {} patched, {} refused, {} unreadable", stats.reviews,
               stats.patched, stats.refused, stats.bad_requests);
  return 0;
}

}  // namespace quotient::cli
