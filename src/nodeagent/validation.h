// What `quotient validate` judges (issue 12): is a remediated node fit to go back into service?
// Unlike the agent's evaluation (nodehealth/evaluate.h), which confirms faults over polls and
// remembers them, this is one look at the node as it is now, right after its repair: every check
// must hold at once, and there is no history to lean on.
//
// Pure: one NVML poll and the InfiniBand port readings in, an ordered list of checks out. The
// kernel log is deliberately not read: lines from before the reset would fail a fixed node, and
// the agent already watches the log during the remediator's hold-down.
//
// Each check is PASS, FAIL or SKIP. SKIP means "could not be judged here and that is acceptable":
// the driver does not support the call (listed by name in the detail), no GPUs or ports to judge,
// or an option that was not given. A reading that is missing for any other reason (the call
// failed) is a FAIL: a validation must not pass what it could not see.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "nodeagent/nvml_collector.h"
#include "nodehealth/observations.h"

namespace quotient::nodeagent {

enum class Verdict { kPass, kFail, kSkip };

std::string_view VerdictName(Verdict verdict);  // "PASS", "FAIL", "SKIP"

struct Check {
  std::string name;  // "nvml", "gpu-count", "remap-pending", "ib-port", ... (docs/node-health.md)
  Verdict verdict = Verdict::kSkip;
  // Names the subject as the agent's condition messages do ("[gpu=<uuid> bdf=<bdf>]",
  // "[ib=<dev> port=<n>]") and the numbers compared.
  std::string detail;
};

struct ValidationOptions {
  // GPUs the node must show. Absent: the count is not judged, and a node without NVML passes
  // the NVML check as SKIP (a CPU node); > 0: a missing NVML is a FAIL.
  std::optional<int> expected_gpus;
  // Every InfiniBand port must run at this rate. Absent: rates are not judged.
  std::optional<int64_t> expected_ib_rate_gbps;
  std::vector<std::string> excluded_ib_devices;  // management NICs: not judged
  // A GPU lowers its PCIe link generation when idle (nvidia-smi: "may be reduced when the GPU is
  // not in use"), and a validation pod leaves it idle: a generation below the maximum is a SKIP
  // naming both unless this is set. The width is always judged.
  bool require_max_pcie_gen = false;
};

// `nvml`, `gpu-count`, then for each GPU in NVML's order: `gpu-lost`, `remap-pending`,
// `remap-failure`, `retired-pages-pending`, `recovery-action`, `pcie-width`, `pcie-gen`,
// `nvlink`.
std::vector<Check> CheckGpus(const NvmlPoll& poll, const ValidationOptions& options);

// `ib-port` (ACTIVE and LinkUp) and `ib-rate` for each port not excluded, by device and port;
// `infiniband` alone when sysfs could not be read (FAIL) or there are no ports (SKIP, or FAIL
// when a rate is expected).
std::vector<Check> CheckInfiniband(const Result<std::vector<nodehealth::IbPortReading>>& ports,
                                   const ValidationOptions& options);

// True when no check FAILed.
bool Passed(const std::vector<Check>& checks);

}  // namespace quotient::nodeagent
