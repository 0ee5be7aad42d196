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
  return config;
}

}  // namespace quotient::remediation
