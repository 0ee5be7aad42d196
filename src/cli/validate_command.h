// `quotient validate`: the validation a remediated node must pass before it is returned to
// service (issue 12). The remediator runs it as a pod on the node (with NVML, /sys and, where
// installed, DCGM); exit code 0 returns the node, anything else keeps it out.
//
//   quotient validate [--nvml-library PATH] [--nvml-deadline 5s] [--sysfs-root DIR]
//                     [--expected-gpus N] [--expected-ib-rate-gbps R] [--exclude-ib-device D ...]
//                     [--require-max-pcie-gen] [--dcgm auto|off|required] [--dcgm-level 1..3]
//                     [--dcgm-timeout DURATION] [-o text|json]
//
// Text output: one line per check, "PASS|FAIL|SKIP <check> <detail>", then
// "SUMMARY pass=N fail=N skip=N (passed)" or "(failed: <checks>)". JSON: one object,
// {"passed": bool, "checks": [{"name", "result", "detail"}], "notSupported": [NVML calls]}.
// Exit 0 when no check FAILed, 1 when one did, 2 for bad usage (the message names the flag).
// The checks are nodeagent/validation.h's; docs/node-health.md lists them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace quotient::cli {

struct ValidateFlags {
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string nvml_deadline = "5s";
  std::string sysfs_root = "/sys";
  std::optional<int> expected_gpus;
  std::optional<int64_t> expected_ib_rate_gbps;
  std::vector<std::string> excluded_ib_devices;
  bool require_max_pcie_gen = false;
  std::string dcgm = "auto";
  int dcgm_level = 1;
  std::string dcgm_timeout;  // a Go duration; empty: by level (nodeagent/dcgm_diag.h)
  std::string output = "text";
};

CLI::App* AddValidateCommand(CLI::App& app, ValidateFlags& flags);
// Reads $PATH to find dcgmi. Usage errors go to `err`, the report to `out`.
int RunValidate(const ValidateFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace quotient::cli
