#include "nodeagent/validation.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "nodehealth/bdf.h"

namespace quotient::nodeagent {

namespace {

using nodehealth::GpuObservation;
using nodehealth::NvmlState;

Check Pass(std::string name, std::string detail) {
  return {std::move(name), Verdict::kPass, std::move(detail)};
}
Check Fail(std::string name, std::string detail) {
  return {std::move(name), Verdict::kFail, std::move(detail)};
}
Check Skip(std::string name, std::string detail) {
  return {std::move(name), Verdict::kSkip, std::move(detail)};
}

// "[gpu=<uuid> bdf=<bdf>]", as the agent's condition messages name a GPU.
std::string Subject(const GpuObservation& gpu) {
  const std::string uuid = gpu.uuid.empty() ? "index-" + std::to_string(gpu.index) : gpu.uuid;
  std::string bdf = nodehealth::NormalizeBdf(gpu.bus_id).value_or(gpu.bus_id);
  if (bdf.empty()) bdf = "unread";
  return "[gpu=" + uuid + " bdf=" + bdf + "]";
}

// "nvmlDeviceGetNvLinkState(link 3)" -> "nvmlDeviceGetNvLinkState": errors name the link or the
// counter asked, a check names the entry point. The recovery-action field is the one call whose
// parenthesis is part of what is asked, and matches in full.
std::string_view EntryPoint(std::string_view call) {
  if (call.find("NVML_FI_") != std::string_view::npos) return call;
  return call.substr(0, call.find('('));
}

// The message of an error from one of `calls` on this GPU.
std::optional<std::string> ErrorOf(const GpuObservation& gpu, const NvmlPoll& poll,
                                   std::initializer_list<std::string_view> calls) {
  const auto errors = poll.errors.find(gpu.index);
  if (errors == poll.errors.end()) return std::nullopt;
  for (const nvml::NvmlCallError& error : errors->second) {
    for (std::string_view call : calls) {
      if (EntryPoint(error.call) == EntryPoint(call)) return error.message;
    }
  }
  return std::nullopt;
}

// The verdict on a reading NVML did not give. An error from one of `calls` on this GPU is a
// FAIL naming it; a call the driver does not support is a SKIP naming it (not_supported is the
// poll's, so errors are looked at first: one GPU's failure is not excused by another's lack of
// support); anything else is a FAIL with the GPU's first error, if any.
Check Unread(const std::string& name, const GpuObservation& gpu, const NvmlPoll& poll,
             std::initializer_list<std::string_view> calls) {
  const std::string subject = Subject(gpu);
  if (gpu.lost) return Skip(name, subject + " not read: the GPU is lost");
  // Without its handle nothing was asked of the GPU, so nothing it lacks is "not supported".
  if (std::optional<std::string> error = ErrorOf(gpu, poll, {"nvmlDeviceGetHandleByIndex_v2"})) {
    return Fail(name, subject + " cannot be opened: " + *error);
  }
  if (std::optional<std::string> error = ErrorOf(gpu, poll, calls)) {
    return Fail(name, subject + " cannot be read: " + *error);
  }
  for (std::string_view call : calls) {
    for (const std::string& unsupported : poll.not_supported) {
      if (EntryPoint(unsupported) == EntryPoint(call)) {
        return Skip(name, subject + " not supported by this driver or GPU: " + unsupported);
      }
    }
  }
  std::string why = "not collected";
  if (const auto errors = poll.errors.find(gpu.index);
      errors != poll.errors.end() && !errors->second.empty()) {
    why += " (" + errors->second.front().message + ")";
  }
  return Fail(name, subject + " " + why);
}

const char* ActionName(nodehealth::RecoveryAction action) {
  switch (action) {
    case nodehealth::RecoveryAction::kNone:
      return "NONE";
    case nodehealth::RecoveryAction::kGpuReset:
      return "GPU_RESET";
    case nodehealth::RecoveryAction::kNodeReboot:
      return "NODE_REBOOT";
    case nodehealth::RecoveryAction::kDrainP2p:
      return "DRAIN_P2P";
    case nodehealth::RecoveryAction::kDrainAndReset:
      return "DRAIN_AND_RESET";
  }
  return "UNKNOWN";
}

Check CheckNvmlLoaded(const NvmlPoll& poll, const ValidationOptions& options) {
  const nodehealth::NvmlStatus& s = poll.status;
  const int expected = options.expected_gpus.value_or(0);
  switch (s.state) {
    case NvmlState::kOk:
      return Pass("nvml", "initialised, " + std::to_string(poll.gpus.size()) + " GPUs");
    case NvmlState::kNotInstalled:
      if (expected > 0) {
        return Fail("nvml",
                    "not installed, " + std::to_string(expected) + " GPUs expected: " + s.detail);
      }
      return Skip("nvml", "not installed and no GPUs expected: " + s.detail);
    case NvmlState::kInitFailed:
      return Fail("nvml", s.call + ": " + s.detail);
    case NvmlState::kTimedOut:
      return Fail("nvml", s.call + " hung: " + s.detail);
  }
  return Fail("nvml", "unknown state");
}

Check CheckCount(const NvmlPoll& poll, const ValidationOptions& options) {
  const std::string found = std::to_string(poll.gpus.size());
  if (poll.status.state == NvmlState::kTimedOut) {
    return Skip("gpu-count", "NVML hung after " + found + " GPUs were read");
  }
  if (poll.status.state != NvmlState::kOk) return Skip("gpu-count", "NVML unavailable");
  if (!options.expected_gpus) return Skip("gpu-count", found + " GPUs, none expected by option");
  const std::string expected = std::to_string(*options.expected_gpus);
  if (static_cast<int64_t>(poll.gpus.size()) == *options.expected_gpus) {
    return Pass("gpu-count", found + " GPUs, " + expected + " expected");
  }
  return Fail("gpu-count", found + " GPUs found, " + expected + " expected");
}

Check CheckRemapPending(const GpuObservation& gpu, const NvmlPoll& poll) {
  if (!gpu.remapped_rows) return Unread("remap-pending", gpu, poll, {"nvmlDeviceGetRemappedRows"});
  const std::string rows = " (" + std::to_string(gpu.remapped_rows->correctable) +
                           " correctable, " + std::to_string(gpu.remapped_rows->uncorrectable) +
                           " uncorrectable rows remapped)";
  if (gpu.remapped_rows->pending) {
    return Fail("remap-pending", Subject(gpu) + " rows wait for a GPU reset to be remapped" + rows);
  }
  return Pass("remap-pending", Subject(gpu) + " no remap pending" + rows);
}

Check CheckRemapFailure(const GpuObservation& gpu, const NvmlPoll& poll) {
  if (!gpu.remapped_rows) return Unread("remap-failure", gpu, poll, {"nvmlDeviceGetRemappedRows"});
  if (gpu.remapped_rows->failure) {
    return Fail("remap-failure",
                Subject(gpu) + " row remapping failed: a memory bank has no spare rows left");
  }
  return Pass("remap-failure", Subject(gpu) + " no remap failure");
}

Check CheckRetiredPages(const GpuObservation& gpu, const NvmlPoll& poll) {
  if (!gpu.retired_pages.pending) {
    return Unread("retired-pages-pending", gpu, poll, {"nvmlDeviceGetRetiredPagesPendingStatus"});
  }
  if (*gpu.retired_pages.pending) {
    return Fail("retired-pages-pending",
                Subject(gpu) + " retired pages wait for a driver reload or GPU reset");
  }
  return Pass("retired-pages-pending", Subject(gpu) + " no page retirement pending");
}

Check CheckRecoveryAction(const GpuObservation& gpu, const NvmlPoll& poll) {
  if (!gpu.recovery_action) {
    return Unread("recovery-action", gpu, poll,
                  {"nvmlDeviceGetFieldValues(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)"});
  }
  if (*gpu.recovery_action != nodehealth::RecoveryAction::kNone) {
    return Fail("recovery-action", Subject(gpu) + " the driver asks for " +
                                       ActionName(*gpu.recovery_action) + ", expected NONE");
  }
  return Pass("recovery-action", Subject(gpu) + " NONE");
}

Check CheckPcieWidth(const GpuObservation& gpu, const NvmlPoll& poll) {
  const nodehealth::PcieReading& p = gpu.pcie;
  if (!p.current_width || !p.max_width) {
    return Unread("pcie-width", gpu, poll,
                  {"nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetMaxPcieLinkWidth"});
  }
  const std::string both =
      "x" + std::to_string(*p.current_width) + ", maximum x" + std::to_string(*p.max_width);
  if (*p.current_width < *p.max_width) {
    return Fail("pcie-width", Subject(gpu) + " link width below its maximum: " + both);
  }
  return Pass("pcie-width", Subject(gpu) + " " + both);
}

Check CheckPcieGen(const GpuObservation& gpu, const NvmlPoll& poll,
                   const ValidationOptions& options) {
  const nodehealth::PcieReading& p = gpu.pcie;
  if (!p.current_gen || !p.max_gen) {
    return Unread("pcie-gen", gpu, poll,
                  {"nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkGeneration"});
  }
  const std::string both =
      "gen " + std::to_string(*p.current_gen) + ", maximum gen " + std::to_string(*p.max_gen);
  if (*p.current_gen >= *p.max_gen) return Pass("pcie-gen", Subject(gpu) + " " + both);
  if (options.require_max_pcie_gen) {
    return Fail("pcie-gen", Subject(gpu) + " link generation below its maximum: " + both);
  }
  return Skip("pcie-gen", Subject(gpu) + " " + both +
                              ": an idle GPU lowers its generation, not judged without "
                              "--require-max-pcie-gen");
}

Check CheckNvlinks(const GpuObservation& gpu, const NvmlPoll& poll) {
  // An error ends NVML's walk over the links, so the links after it are unknown: Unread fails
  // the check even when those read are up. No link at all is "not supported" (no NVLink).
  if (gpu.lost || gpu.nvlinks.empty() || ErrorOf(gpu, poll, {"nvmlDeviceGetNvLinkState"})) {
    return Unread("nvlink", gpu, poll, {"nvmlDeviceGetNvLinkState"});
  }
  std::string down;
  for (const nodehealth::NvlinkReading& link : gpu.nvlinks) {
    if (link.active) continue;
    down += (down.empty() ? "" : ", ") + std::to_string(link.link);
  }
  const auto active = std::count_if(gpu.nvlinks.begin(), gpu.nvlinks.end(),
                                    [](const nodehealth::NvlinkReading& l) { return l.active; });
  const std::string counts =
      std::to_string(active) + " of " + std::to_string(gpu.nvlinks.size()) + " NVLinks active";
  if (!down.empty()) return Fail("nvlink", Subject(gpu) + " " + counts + "; down: " + down);
  return Pass("nvlink", Subject(gpu) + " " + counts);
}

}  // namespace

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kSkip:
      return "SKIP";
  }
  return "FAIL";
}

std::vector<Check> CheckGpus(const NvmlPoll& poll, const ValidationOptions& options) {
  std::vector<Check> checks{CheckNvmlLoaded(poll, options), CheckCount(poll, options)};
  for (const GpuObservation& gpu : poll.gpus) {
    if (gpu.lost) {
      checks.push_back(Fail("gpu-lost", Subject(gpu) + " NVML reports the GPU lost (GPU_IS_LOST)"));
    } else {
      checks.push_back(Pass("gpu-lost", Subject(gpu) + " answers NVML"));
    }
    checks.push_back(CheckRemapPending(gpu, poll));
    checks.push_back(CheckRemapFailure(gpu, poll));
    checks.push_back(CheckRetiredPages(gpu, poll));
    checks.push_back(CheckRecoveryAction(gpu, poll));
    checks.push_back(CheckPcieWidth(gpu, poll));
    checks.push_back(CheckPcieGen(gpu, poll, options));
    checks.push_back(CheckNvlinks(gpu, poll));
  }
  return checks;
}

std::vector<Check> CheckInfiniband(const Result<std::vector<nodehealth::IbPortReading>>& ports,
                                   const ValidationOptions& options) {
  if (!ports.ok()) return {Fail("infiniband", "sysfs cannot be read: " + ports.message())};
  std::vector<Check> checks;
  const auto& excluded = options.excluded_ib_devices;
  for (const nodehealth::IbPortReading& port : *ports) {
    if (std::find(excluded.begin(), excluded.end(), port.device) != excluded.end()) continue;
    const std::string subject = "[ib=" + port.device + " port=" + std::to_string(port.port) + "]";
    const std::string states = "state " + std::to_string(port.state) + ": " + port.state_name +
                               ", physical state " + std::to_string(port.phys_state) + ": " +
                               port.phys_state_name;
    // sysfs numbers: 4 = ACTIVE, 5 = LinkUp (the names are the kernel's, for the reader).
    if (port.state == 4 && port.phys_state == 5) {
      checks.push_back(Pass("ib-port", subject + " " + states));
    } else {
      checks.push_back(Fail("ib-port", subject + " " + states + "; expected 4: ACTIVE, 5: LinkUp"));
    }
    const std::string rate = port.rate_text.empty() ? "no rate" : "rate '" + port.rate_text + "'";
    if (!options.expected_ib_rate_gbps) {
      checks.push_back(Skip("ib-rate", subject + " " + rate + ", none expected by option"));
      continue;
    }
    const int64_t expected_mbps = *options.expected_ib_rate_gbps * 1000;
    const std::string expected = std::to_string(*options.expected_ib_rate_gbps) + " Gb/s expected";
    if (port.rate_mbps == expected_mbps) {
      checks.push_back(Pass("ib-rate", subject + " " + rate + ", " + expected));
    } else {
      checks.push_back(Fail("ib-rate", subject + " " + rate + ", " + expected));
    }
  }
  if (checks.empty()) {
    if (options.expected_ib_rate_gbps) {
      return {Fail("infiniband", "no InfiniBand port found, " +
                                     std::to_string(*options.expected_ib_rate_gbps) +
                                     " Gb/s expected")};
    }
    return {Skip("infiniband", "no InfiniBand port")};
  }
  return checks;
}

bool Passed(const std::vector<Check>& checks) {
  return std::none_of(checks.begin(), checks.end(),
                      [](const Check& c) { return c.verdict == Verdict::kFail; });
}

}  // namespace quotient::nodeagent
