#include "nodeagent/node_validation.h"

#include "nodehealth/infiniband.h"

namespace quotient::nodeagent {

ValidationReport ValidateNode(const NodeValidationOptions& options) {
  ValidationReport report;
  {
    // The collector (our NVML session and its XID event set) ends before dcgmi runs, so the
    // diagnostic's minutes are not spent with an idle client of ours registered on the GPUs.
    NvmlCollector collector(options.nvml);
    const NvmlPoll poll = collector.Poll();
    report.checks = CheckGpus(poll, options.checks);
    report.not_supported = poll.not_supported;
  }
  const std::vector<Check> ib = CheckInfiniband(
      nodehealth::ReadInfinibandPorts(options.sysfs_root, options.checks.excluded_ib_devices),
      options.checks);
  report.checks.insert(report.checks.end(), ib.begin(), ib.end());
  report.checks.push_back(RunDcgmDiag(options.dcgm));
  return report;
}

}  // namespace quotient::nodeagent
