// The checks on what NVML reports (poll.h): the driver itself, the GPU inventory, and each GPU's
// memory, NVLink and PCIe health, and the driver's recovery-action hint.
#include <algorithm>

#include "nodehealth/poll.h"

namespace quotient::nodehealth {
namespace {

std::string GpuSubject(const std::string& key) { return "gpu/" + key; }

std::string JoinNumbers(const std::vector<int>& numbers) {
  std::string out;
  for (int n : numbers) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

void RaiseDriverUnresponsive(Poll& p, const std::string& reason, const std::string& text) {
  p.Raise(Finding{ConditionType::kGpuDriverUnresponsive, "node", reason,
                  Signal::kDriverUnresponsive, std::nullopt,
                  p.Message("[node]", text, Signal::kDriverUnresponsive), "always", false});
}

void CheckGpuCount(Poll& p) {
  const NodeObservation& o = p.observation;
  const int seen = static_cast<int>(o.gpus.size());
  // Without an inventory label, the GPUs seen earlier this boot are the inventory.
  const int expected = o.expected_gpu_count.value_or(static_cast<int>(p.state.gpus.size()));
  if (seen == expected) return;
  std::vector<std::string> missing;
  for (const auto& [key, known] : p.state.gpus) {
    const bool present = std::any_of(o.gpus.begin(), o.gpus.end(),
                                     [&](const GpuObservation& g) { return GpuKey(g) == key; });
    if (!present) missing.push_back(key);
  }
  std::string text =
      "NVML sees " + std::to_string(seen) + " GPUs, " + std::to_string(expected) + " expected";
  for (size_t i = 0; i < missing.size(); ++i) text += (i == 0 ? "; missing " : ", ") + missing[i];
  p.Raise(Finding{ConditionType::kGpuLost, "node", "GpuCountMismatch", Signal::kGpuLost,
                  std::nullopt, p.Message("[node]", text, Signal::kGpuLost), "nvml", false});
}

void CheckMemory(Poll& p, const GpuObservation& gpu, const std::string& key) {
  const std::string subject = GpuSubject(key);
  const std::string domain = subject;
  const std::string tag = p.GpuTag(key);
  auto raise = [&](const std::string& reason, Signal signal, const std::string& text) {
    p.Raise(Finding{ConditionType::kGpuMemoryDegraded, subject, reason, signal, std::nullopt,
                    p.Message(tag, text, signal), domain, false});
  };
  if (gpu.remapped_rows && gpu.remapped_rows->pending) {
    raise("RowRemapPending", Signal::kRemapPending, "rows wait for a GPU reset to be remapped");
  }
  if (gpu.remapped_rows && gpu.remapped_rows->failure) {
    raise("RowRemapFailure", Signal::kMemoryUncorrectable,
          "row remapping failed: the memory bank has no spare rows left");
  }
  if (gpu.ecc.volatile_uncorrected.value_or(0) > 0) {
    raise("UncorrectableEcc", Signal::kMemoryUncorrectable,
          std::to_string(*gpu.ecc.volatile_uncorrected) +
              " uncorrectable ECC errors since the driver loaded");
  }
  if (gpu.retired_pages.pending.value_or(false)) {
    raise("RetiredPagesPending", Signal::kRemapPending,
          "retired pages wait for a GPU reset to take effect");
  }
  if (gpu.ecc.volatile_corrected) {
    const WindowVerdict burst = p.Window(subject + "/ecc/volatile_corrected",
                                         *gpu.ecc.volatile_corrected, p.policy.sbe_burst);
    if (burst.newly_bad) {
      p.Event("SingleBitEccBurst", subject,
              tag + " more than " + std::to_string(p.policy.sbe_burst.max_per_window) +
                  " corrected ECC errors within " +
                  std::to_string(p.policy.sbe_burst.window_seconds) + " s");
    }
  }
}

// One rate-judged counter per link; the links over the limit, for one finding per GPU.
struct RateCheck {
  Signal signal;
  const char* counter;
  const char* reason;
  const char* what;
  std::vector<int> bad_links;
};

void CheckNvlinks(Poll& p, const GpuObservation& gpu, const std::string& key) {
  const std::string subject = GpuSubject(key);
  const std::string tag = p.GpuTag(key);
  std::vector<int> inactive;
  std::vector<int> went_down;
  int active = 0;
  RateCheck checks[] = {
      {Signal::kNvlinkReplay, "replay", "ReplayRateHigh", "replay errors", {}},
      {Signal::kNvlinkRecovery, "recovery", "RecoveryRateHigh", "recovery errors", {}},
      {Signal::kNvlinkCrc, "crc", "CrcRateHigh", "CRC errors", {}},
  };
  for (const NvlinkReading& link : gpu.nvlinks) {
    const std::string link_key = key + "/" + std::to_string(link.link);
    if (link.active) {
      ++active;
      p.state.active_nvlinks.insert(link_key);
    } else {
      inactive.push_back(link.link);
      if (p.state.active_nvlinks.count(link_key) > 0) went_down.push_back(link.link);
    }
    const std::optional<int64_t> values[] = {link.replay, link.recovery, link.crc};
    for (size_t i = 0; i < std::size(checks); ++i) {
      if (!values[i]) continue;
      RateCheck& c = checks[i];
      const std::string counter =
          subject + "/nvlink/" + std::to_string(link.link) + "/" + c.counter;
      const WindowVerdict v = p.Window(counter, *values[i], p.RuleOf(c.signal));
      if (v.newly_bad) {
        p.Event(std::string("Nvlink") + c.reason, subject,
                tag + " NVLink " + std::to_string(link.link) + " " + c.what + " over " +
                    std::to_string(p.RuleOf(c.signal).max_per_window) + " in a window");
      }
      if (v.bad_windows >= p.policy.Of(c.signal).count) c.bad_links.push_back(link.link);
    }
  }
  const std::optional<int> expected = p.observation.expected_nvlinks_per_gpu;
  if ((expected && active < *expected) || !went_down.empty()) {
    std::string text = std::to_string(active) + " NVLinks active";
    if (expected) text += ", " + std::to_string(*expected) + " expected";
    text += "; inactive: " + JoinNumbers(expected ? inactive : went_down);
    p.Raise(Finding{ConditionType::kGpuNvlinkDegraded, subject, "LinkInactive", Signal::kNvlink,
                    std::nullopt, p.Message(tag, text, Signal::kNvlink), subject, false});
  }
  for (const RateCheck& c : checks) {
    if (c.bad_links.empty()) continue;
    const SignalPolicy& sp = p.policy.Of(c.signal);
    const std::string text =
        std::string("NVLink ") + c.what + " over " + std::to_string(sp.max_per_window) + " per " +
        std::to_string(sp.window_seconds) + " s for " + std::to_string(sp.count) +
        " windows on links " + JoinNumbers(c.bad_links);
    p.Raise(Finding{ConditionType::kGpuNvlinkDegraded, subject, c.reason, c.signal, std::nullopt,
                    p.Message(tag, text, c.signal), subject, false});
  }
}

void CheckPcie(Poll& p, const GpuObservation& gpu, const std::string& key) {
  const PcieReading& pcie = gpu.pcie;
  const std::string subject = GpuSubject(key);
  const std::string tag = p.GpuTag(key);
  auto raise = [&](const std::string& reason, Signal signal, const std::string& text) {
    p.Raise(Finding{ConditionType::kGpuPcieDegraded, subject, reason, signal, std::nullopt,
                    p.Message(tag, text, signal), subject, false});
  };
  if (pcie.current_width && pcie.max_width && *pcie.current_width < *pcie.max_width) {
    raise("WidthBelowMax", Signal::kPcieWidth,
          "PCIe link x" + std::to_string(*pcie.current_width) + ", maximum x" +
              std::to_string(*pcie.max_width));
  }
  if (pcie.under_load.value_or(false) && pcie.current_gen && pcie.max_gen &&
      *pcie.current_gen < *pcie.max_gen) {
    raise("GenBelowMaxUnderLoad", Signal::kPcieGen,
          "PCIe gen " + std::to_string(*pcie.current_gen) + " under load, maximum gen " +
              std::to_string(*pcie.max_gen));
  }
  if (pcie.replay) {
    const SignalPolicy& sp = p.policy.Of(Signal::kPcieReplay);
    const WindowVerdict v =
        p.Window(subject + "/pcie/replay", *pcie.replay, p.RuleOf(Signal::kPcieReplay));
    if (v.newly_bad) {
      p.Event("PcieReplayRate", subject,
              tag + " PCIe replays over " + std::to_string(sp.max_per_window) + " in a window");
    }
    if (v.bad_windows >= sp.count) {
      raise("ReplayRateHigh", Signal::kPcieReplay,
            "PCIe replays over " + std::to_string(sp.max_per_window) + " per " +
                std::to_string(sp.window_seconds) + " s for " + std::to_string(sp.count) +
                " windows");
    }
  }
}

}  // namespace

void CheckNvml(Poll& p) {
  const NodeObservation& o = p.observation;
  p.nvml_ok = o.nvml.state == NvmlState::kOk;
  const bool gpus_expected = o.expected_gpu_count.value_or(0) > 0 || !p.state.gpus.empty();
  const std::string failure =
      o.nvml.call + (o.nvml.call.empty() || o.nvml.detail.empty() ? "" : ": ") + o.nvml.detail;
  switch (o.nvml.state) {
    case NvmlState::kOk:
      p.observed.insert("nvml");
      break;
    case NvmlState::kTimedOut:
      RaiseDriverUnresponsive(p, "NvmlTimeout", "NVML call did not return in time: " + failure);
      break;
    case NvmlState::kInitFailed:
      RaiseDriverUnresponsive(p, "NvmlInitFailed", "NVML did not start: " + failure);
      break;
    case NvmlState::kNotInstalled:
      if (gpus_expected) {
        RaiseDriverUnresponsive(p, "NvmlInitFailed",
                                "NVML is not installed but GPUs are expected: " + failure);
      } else {
        p.no_gpus = true;
      }
      break;
  }
  if (!p.nvml_ok) return;
  for (const GpuObservation& gpu : o.gpus) {
    const std::string key = GpuKey(gpu);
    p.state.gpus[key] = KnownGpu{gpu.index, gpu.uuid};
    if (!gpu.lost) p.observed.insert("gpu/" + key);
  }
  for (const GpuObservation& gpu : o.gpus) {
    if (!gpu.lost) continue;
    const std::string key = GpuKey(gpu);
    p.Raise(Finding{
        ConditionType::kGpuLost, "gpu/" + key, "NvmlGpuIsLost", Signal::kGpuLost, std::nullopt,
        p.Message(p.GpuTag(key), "NVML reports the GPU lost (GPU_IS_LOST)", Signal::kGpuLost),
        "nvml", false});
  }
  CheckGpuCount(p);
}

void CheckGpus(Poll& p) {
  if (!p.nvml_ok) return;
  for (const GpuObservation& gpu : p.observation.gpus) {
    if (gpu.lost) continue;  // nothing it reports can be trusted; GpuLost says so
    const std::string key = GpuKey(gpu);
    CheckMemory(p, gpu, key);
    CheckNvlinks(p, gpu, key);
    CheckPcie(p, gpu, key);
  }
}

void CheckRecoveryActions(Poll& p) {
  if (p.nvml_ok) {
    // The field is the driver's current word; it overrides what an older XID 154 line said.
    for (const GpuObservation& gpu : p.observation.gpus) {
      if (gpu.lost || !gpu.recovery_action) continue;
      if (*gpu.recovery_action == RecoveryAction::kNone) {
        p.state.stated_recovery.erase(GpuKey(gpu));
      } else {
        p.state.stated_recovery[GpuKey(gpu)] = *gpu.recovery_action;
      }
    }
  }
  for (const auto& [key, action] : p.state.stated_recovery) {
    const char* reason = "ResetRequired";
    if (action == RecoveryAction::kNodeReboot) reason = "RebootRequired";
    if (action == RecoveryAction::kDrainP2p) reason = "DrainP2P";
    if (action == RecoveryAction::kDrainAndReset) reason = "DrainAndReset";
    const std::vector<std::string>& ladder = p.policy.Of(Signal::kRecoveryAction).ladder;
    // "stated" in the ladder stands for the action the driver names.
    const std::string label = ladder.empty()               ? std::string("NONE")
                              : ladder.front() == "stated" ? RecoveryActionLabel(action)
                                                           : ActionLabel(ladder.front());
    // The driver's latest word replaces its earlier one rather than waiting out the hysteresis.
    std::erase_if(p.state.faults, [&](const auto& item) {
      const FaultRecord& r = item.second;
      return r.type == ConditionType::kGpuRemediationRequired && r.subject == "gpu/" + key &&
             r.reason != reason;
    });
    p.Raise(Finding{
        ConditionType::kGpuRemediationRequired, "gpu/" + key, reason, Signal::kRecoveryAction,
        std::nullopt,
        p.Message(p.GpuTag(key), "the driver asks for " + RecoveryActionLabel(action), label),
        "gpu/" + key, false});
  }
}

}  // namespace quotient::nodehealth
