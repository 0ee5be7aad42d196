#include "remediation/config.h"

namespace quotient::remediation {

using std::chrono::minutes;

Config DefaultConfig() {
  const Rung gpu_reset{"gpu-reset", minutes(10)};
  const Rung driver_reload{"driver-reload", minutes(15)};
  const Rung reboot{"reboot", minutes(30)};
  Config config;
  // Fatal classes: confirmed at once; a reset first, a reboot if it does not take (§2.2).
  config.policy["GpuXidFatal"] = {minutes(0), {}, {gpu_reset, reboot}, {}};
  // A GPU off the bus does not come back with a reset: power-cycle.
  config.policy["GpuLost"] = {minutes(0), {}, {reboot}, {}};
  // Only failures take the node out; a pending remap or retired page waits for the next drain
  // while the scheduler leaves that one GPU out (kGpuHealthAnnotation).
  config.policy["GpuMemoryDegraded"] = {
      minutes(0),
      {"RowRemapPending", "RetiredPagesPending", "RemapCapacityLow"},
      {gpu_reset, reboot},
      {}};
  config.policy["GpuNvlinkDegraded"] = {minutes(0), {}, {gpu_reset, reboot}, {}};
  // Rate-based classes: confirmed after 5 minutes, so a burst does not drain a node.
  config.policy["GpuPcieDegraded"] = {minutes(5), {}, {reboot}, {}};
  config.policy["IbPortDegraded"] = {minutes(5), {}, {driver_reload, reboot}, {}};
  config.policy["GpuDriverUnresponsive"] = {minutes(5), {}, {driver_reload, reboot}, {}};
  // The driver's own recovery hint (XID 154, NVML field 230) says what to do.
  config.policy["GpuRemediationRequired"] = {
      minutes(0), {}, {gpu_reset, reboot}, {{"RebootRequired", {reboot}}, {"DrainP2P", {}}}};
  // The host commands run through nsenter into the host's namespaces (the step pod runs
  // hostPID and privileged). They suit a driver installed on the host; a driver container (GPU
  // operator) needs its own commands, set in the `steps` section of the config.
  const std::vector<std::string> on_host = {"nsenter", "--target", "1",     "--mount", "--uts",
                                            "--ipc",   "--net",    "--pid", "--"};
  auto host = [&](std::vector<std::string> command) {
    std::vector<std::string> full = on_host;
    full.insert(full.end(), command.begin(), command.end());
    return full;
  };
  config.steps["gpu-reset"] = {StepKind::kPod, host({"nvidia-smi", "--gpu-reset"}), false, "", ""};
  config.steps["driver-reload"] = {
      StepKind::kPod,
      host({"sh", "-c",
            "modprobe -r nvidia_uvm nvidia_drm nvidia_modeset nvidia && modprobe nvidia && "
            "modprobe nvidia_uvm"}),
      false, "", ""};
  config.steps["reboot"] = {StepKind::kPod, host({"systemctl", "reboot"}), true, "", ""};
  return config;
}

Status CheckStepsDefined(const Config& config) {
  auto check = [&](const std::string& where, const std::vector<Rung>& ladder) -> Status {
    for (size_t i = 0; i < ladder.size(); ++i) {
      if (config.steps.count(ladder[i].step) == 0) {
        return Status::Error(where + "[" + std::to_string(i) + "].step: no step named \"" +
                             ladder[i].step + "\" in steps");
      }
    }
    return Status::Ok();
  };
  for (const auto& [type, policy] : config.policy) {
    if (Status s = check("policy." + type + ".ladder", policy.ladder); !s.ok()) return s;
    for (const auto& [reason, ladder] : policy.reason_ladders) {
      if (Status s = check("policy." + type + ".reasonLadders." + reason, ladder); !s.ok()) {
        return s;
      }
    }
  }
  return Status::Ok();
}

}  // namespace quotient::remediation
