// `quotient validate`'s one pass over the node: an NVML poll under deadlines
// (nvml_collector.h), the InfiniBand ports from sysfs, `dcgmi diag` when present, all judged by
// validation.h. The remediator runs it as a pod on a repaired node; the node goes back into
// service only when the report passed.
#pragma once

#include <string>
#include <vector>

#include "nodeagent/dcgm_diag.h"
#include "nodeagent/nvml_collector.h"
#include "nodeagent/validation.h"

namespace quotient::nodeagent {

struct NodeValidationOptions {
  NvmlCollectorOptions nvml;
  std::string sysfs_root = "/sys";
  ValidationOptions checks;
  DcgmOptions dcgm;
};

struct ValidationReport {
  // nvml, gpu-count, the per-GPU checks, the InfiniBand checks, dcgm-diag (validation.h).
  std::vector<Check> checks;
  std::vector<std::string> not_supported;  // NVML calls this driver cannot answer, sorted
  bool passed() const { return Passed(checks); }
};

// Runs every check once. DCGM runs last: it is by far the slowest, and it stresses the GPUs the
// NVML reading should see at rest.
ValidationReport ValidateNode(const NodeValidationOptions& options);

}  // namespace quotient::nodeagent
