#include "cli/validate_command.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/time_text.h"
#include "nodeagent/node_validation.h"

namespace quotient::cli {

namespace {

constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
// Bounds for the numeric flags, so that a typo is named as one (CLI11's unbounded checks print
// the largest double in their message).
constexpr int kMaxGpus = 4096;
constexpr int64_t kMaxIbRateGbps = 100'000;

// A positive Go duration from `flag`, or nullopt with the reason written to `err`.
std::optional<std::chrono::seconds> PositiveDuration(const char* flag, const std::string& text,
                                                     std::ostream& err) {
  Result<std::chrono::seconds> parsed = core::ParseGoDuration(text);
  if (!parsed.ok() || parsed->count() <= 0) {
    err << "quotient validate: " << flag << ": expected a positive Go duration, got \"" << text
        << "\"\n";
    return std::nullopt;
  }
  return *parsed;
}

void PrintText(const nodeagent::ValidationReport& report, std::ostream& out) {
  int passed = 0, failed = 0, skipped = 0;
  std::string failed_names;
  for (const nodeagent::Check& c : report.checks) {
    out << nodeagent::VerdictName(c.verdict) << ' ' << c.name << ' ' << c.detail << '\n';
    if (c.verdict == nodeagent::Verdict::kPass) ++passed;
    if (c.verdict == nodeagent::Verdict::kSkip) ++skipped;
    if (c.verdict != nodeagent::Verdict::kFail) continue;
    ++failed;
    // Each failing check named once, in order: the per-GPU checks repeat their names.
    if ((", " + failed_names + ",").find(", " + c.name + ",") == std::string::npos) {
      failed_names += (failed_names.empty() ? "" : ", ") + c.name;
    }
  }
  out << "SUMMARY pass=" << passed << " fail=" << failed << " skip=" << skipped << " ("
      << (failed == 0 ? "passed" : "failed: " + failed_names) << ")\n";
}

void PrintJson(const nodeagent::ValidationReport& report, std::ostream& out) {
  nlohmann::json checks = nlohmann::json::array();
  for (const nodeagent::Check& c : report.checks) {
    checks.push_back({{"name", c.name},
                      {"result", std::string(nodeagent::VerdictName(c.verdict))},
                      {"detail", c.detail}});
  }
  out << nlohmann::json{{"passed", report.passed()},
                        {"checks", checks},
                        {"notSupported", report.not_supported}}
             .dump()
      << '\n';
}

}  // namespace

CLI::App* AddValidateCommand(CLI::App& app, ValidateFlags& flags) {
  CLI::App* cmd = app.add_subcommand(
      "validate", "Check a repaired node before it returns to service (exit 0: pass, 1: fail)");
  cmd->add_option("--nvml-library", flags.nvml_library,
                  "NVML to load, a soname or a path (default libnvidia-ml.so.1)");
  cmd->add_option("--nvml-deadline", flags.nvml_deadline,
                  "Longest an NVML call may take before the driver counts as hung (5s)");
  cmd->add_option("--sysfs-root", flags.sysfs_root, "sysfs mount (default /sys)");
  cmd->add_option("--expected-gpus", flags.expected_gpus,
                  "GPUs this node must show; above 0, a node without NVML fails")
      ->check(CLI::Range(0, kMaxGpus));
  cmd->add_option("--expected-ib-rate-gbps", flags.expected_ib_rate_gbps,
                  "Rate every InfiniBand port must run at, Gb/s")
      ->check(CLI::Range(int64_t{1}, kMaxIbRateGbps));
  cmd->add_option("--exclude-ib-device", flags.excluded_ib_devices,
                  "InfiniBand device not to judge (a management NIC); repeatable");
  cmd->add_flag("--require-max-pcie-gen", flags.require_max_pcie_gen,
                "Fail a PCIe generation below the maximum (idle GPUs lower it; default: SKIP)");
  cmd->add_option("--dcgm", flags.dcgm,
                  "dcgmi diag: auto (when on PATH, default), off, required (missing fails)")
      ->check(CLI::IsMember({"auto", "off", "required"}));
  cmd->add_option("--dcgm-level", flags.dcgm_level, "dcgmi diag -r level, 1 (default) to 3")
      ->check(CLI::Range(1, 3));
  cmd->add_option("--dcgm-timeout", flags.dcgm_timeout,
                  "Longest dcgmi diag may run (default 5m, 20m, 60m for levels 1, 2, 3)");
  cmd->add_option("-o,--output", flags.output, "Output: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  return cmd;
}

int RunValidate(const ValidateFlags& flags, std::ostream& out, std::ostream& err) {
  // CLI11 checks these when parsing; checked again for callers that fill the flags themselves.
  const std::optional<nodeagent::DcgmMode> mode = nodeagent::ParseDcgmMode(flags.dcgm);
  if (!mode) {
    err << "quotient validate: --dcgm: expected auto, off or required, got \"" << flags.dcgm
        << "\"\n";
    return kExitUsage;
  }
  if (flags.dcgm_level < 1 || flags.dcgm_level > 3) {
    err << "quotient validate: --dcgm-level: expected 1, 2 or 3, got " << flags.dcgm_level << '\n';
    return kExitUsage;
  }
  if (flags.output != "text" && flags.output != "json") {
    err << "quotient validate: --output: expected text or json, got \"" << flags.output << "\"\n";
    return kExitUsage;
  }
  const std::optional<std::chrono::seconds> deadline =
      PositiveDuration("--nvml-deadline", flags.nvml_deadline, err);
  if (!deadline) return kExitUsage;

  nodeagent::NodeValidationOptions options;
  options.nvml.library = flags.nvml_library;
  options.nvml.deadline = *deadline;
  options.sysfs_root = flags.sysfs_root;
  options.checks.expected_gpus = flags.expected_gpus;
  options.checks.expected_ib_rate_gbps = flags.expected_ib_rate_gbps;
  options.checks.excluded_ib_devices = flags.excluded_ib_devices;
  options.checks.require_max_pcie_gen = flags.require_max_pcie_gen;
  options.dcgm.mode = *mode;
  options.dcgm.level = flags.dcgm_level;
  options.dcgm.timeout = nodeagent::DefaultDcgmTimeout(flags.dcgm_level);
  if (!flags.dcgm_timeout.empty()) {
    const std::optional<std::chrono::seconds> timeout =
        PositiveDuration("--dcgm-timeout", flags.dcgm_timeout, err);
    if (!timeout) return kExitUsage;
    options.dcgm.timeout = *timeout;
  }
  const char* path = std::getenv("PATH");
  options.dcgm.path = path == nullptr ? "/usr/local/bin:/usr/bin:/bin" : path;

  const nodeagent::ValidationReport report = nodeagent::ValidateNode(options);
  if (flags.output == "json") {
    PrintJson(report, out);
  } else {
    PrintText(report, out);
  }
  out.flush();
  return report.passed() ? kExitPassed : kExitFailed;
}

}  // namespace quotient::cli
