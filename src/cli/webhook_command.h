// `quotient webhook`: the admission webhook for GPU-sharing pods (src/webhook), served over TLS
// for the API server's MutatingWebhookConfiguration and ValidatingWebhookConfiguration:
//
//   quotient webhook --tls-cert-file FILE --tls-private-key-file FILE
//                    [--listen-address HOST:PORT] [--scheduler-name NAME]
//                    [--gpu-sharing=true|false] [--interposer-host-dir DIR]
//                    [--log-format text|json] [--log-level L]
//
// It makes no call to the API server: each review is answered from the request alone. Runs until
// SIGTERM/SIGINT; exit code 0 then, 1 when it cannot serve (certificate, port), 2 for bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace quotient::cli {

struct WebhookFlags {
  std::string listen_address = ":9443";
  std::string certificate_file;
  std::string key_file;
  std::string scheduler_name = "quotient";
  bool gpu_sharing = true;
  std::string interposer_host_dir = "/var/lib/quotient/interposer";
  std::string log_format = "text";
  std::string log_level = "info";
};

CLI::App* AddWebhookCommand(CLI::App& app, WebhookFlags& flags);
int RunWebhook(const WebhookFlags& flags);

}  // namespace quotient::cli
