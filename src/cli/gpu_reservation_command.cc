#include "cli/gpu_reservation_command.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/service_common.h"
#include "nvml/single_gpu.h"

namespace quotient::cli {

namespace {

constexpr char kGpuAnnotation[] = "run.ai/reserve_for_gpu_index";

std::string FromEnvironment(const std::string& flag, const char* variable) {
  if (!flag.empty()) return flag;
  const char* value = std::getenv(variable);
  return value == nullptr ? "" : value;
}

}  // namespace

CLI::App* AddGpuReservationCommand(CLI::App& app, GpuReservationFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "gpu-reservation",
      "Run as a GPU reservation pod: publish this pod's GPU UUID, then hold the GPU");
  cmd->add_option("--pod-name", flags.pod_name, "This pod's name (default $POD_NAME)");
  cmd->add_option("--pod-namespace", flags.pod_namespace,
                  "This pod's namespace (default $POD_NAMESPACE)");
  cmd->add_option("--kubeconfig", flags.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--nvml-library", flags.nvml_library,
                  "NVML to load, a soname or a path (default libnvidia-ml.so.1)");
  cmd->add_option("--log-format", flags.log_format, "Log format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--log-level", flags.log_level,
                  "Log level: trace, debug, info (default), warn, error");
  return cmd;
}

int RunGpuReservation(const GpuReservationFlags& flags) {
  if (std::optional<int> bad = StartLogging("gpu-reservation", flags.log_format, flags.log_level)) {
    return *bad;
  }
  const std::string name = FromEnvironment(flags.pod_name, "POD_NAME");
  const std::string ns = FromEnvironment(flags.pod_namespace, "POD_NAMESPACE");
  if (name.empty() || ns.empty()) {
    spdlog::error("--pod-name and --pod-namespace (or $POD_NAME and $POD_NAMESPACE) are required");
    return 2;
  }
  auto nvml = nvml::Nvml::Load(flags.nvml_library);
  if (!nvml.ok()) {
    spdlog::error("cannot read the GPU: {}", nvml.message());
    return 1;
  }
  Result<std::string> uuid = nvml::SingleVisibleGpuUuid(**nvml);
  if (!uuid.ok()) {
    spdlog::error("cannot read the GPU: {}", uuid.message());
    return 1;
  }
  auto client = ConnectToCluster(flags.kubeconfig, "", 5, 10);
  if (client == nullptr) return 1;
  const nlohmann::json patch = {{"metadata", {{"annotations", {{kGpuAnnotation, *uuid}}}}}};
  auto patched = client->Patch(kubeclient::resources::Pods(), ns, name,
                               kubeclient::PatchType::kMerge, patch.dump());
  if (!patched.ok()) {
    spdlog::error("cannot publish GPU {} on pod {}/{}: {}", *uuid, ns, name,
                  patched.error().Describe());
    return 1;
  }
  spdlog::info("pod {}/{} holds GPU {}", ns, name, *uuid);
  StopOnSignal stop;
  stop.Wait();
  return 0;
}

}  // namespace quotient::cli
