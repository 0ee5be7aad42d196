// `quotient gpu-reservation`: what a GPU reservation pod runs (service/gpu_sharing_binder.h). The
// device plugin gives the pod one GPU; this reads that GPU's UUID through NVML and publishes it
// on the pod itself, in the annotation run.ai/reserve_for_gpu_index (KAI's), where the
// scheduler waits for it before it binds the fractional pods that share the GPU. Then it sleeps
// until SIGTERM, holding the GPU for them.
//
//   quotient gpu-reservation [--pod-name NAME] [--pod-namespace NS] [--kubeconfig FILE]
//                            [--nvml-library PATH] [--log-format text|json] [--log-level L]
//
// The pod's name and namespace default to $POD_NAME and $POD_NAMESPACE (the downward API).
// Exit code 1 when there is not exactly one GPU or the annotation cannot be written (the pod
// restarts and tries again), 0 after SIGTERM, 2 for bad usage.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace quotient::cli {

struct GpuReservationFlags {
  std::string pod_name;
  std::string pod_namespace;
  std::string kubeconfig;
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string log_format = "text";
  std::string log_level = "info";
};

CLI::App* AddGpuReservationCommand(CLI::App& app, GpuReservationFlags& flags);
int RunGpuReservation(const GpuReservationFlags& flags);

}  // namespace quotient::cli
