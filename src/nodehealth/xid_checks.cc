// The checks on XIDs (from NVML events and the kernel log) and the kernel log's other fault
// lines (poll.h): what the catalogue and the policy make of each.
#include <set>

#include "nodehealth/poll.h"

namespace quotient::nodehealth {
namespace {

constexpr int kDramQualifier = 171;
constexpr int kSramQualifier = 172;

struct XidHit {
  std::string bdf;  // the GPU key
  int code = 0;
  std::optional<bool> fatal;               // as an NVLink5 line states it
  std::optional<RecoveryAction> recovery;  // as an XID 154 line states it
};

// How the policy and catalogue classify a code: a signal (a fault) or nothing (an Event).
std::optional<Signal> SignalOf(const Poll& p, int code, const XidEntry* entry) {
  if (auto override_it = p.policy.xid_signals.find(code);
      override_it != p.policy.xid_signals.end()) {
    return override_it->second;
  }
  if (entry == nullptr) return Signal::kXidUnknown;
  return entry->signal;
}

void CountAppRepeat(Poll& p, const XidHit& hit, const std::string& tag) {
  RepeatCount& r = p.state.app_xids[hit.bdf + "/" + std::to_string(hit.code)];
  if (r.count == 0 || p.now_s - r.window_start_s >= p.policy.app_xid_repeat_window_seconds) {
    r = RepeatCount{p.now_s, 0};
  }
  if (++r.count == p.policy.app_xid_repeat_count) {
    p.Event("XidRepeated", "gpu/" + hit.bdf,
            tag + " XID " + std::to_string(hit.code) + " seen " + std::to_string(r.count) +
                " times within " + std::to_string(p.policy.app_xid_repeat_window_seconds) +
                " s on this GPU: suspect the GPU rather than the applications");
  }
}

void JudgeXid(Poll& p, const XidHit& hit, const std::set<int>& codes_on_gpu) {
  const XidEntry* entry = p.catalog.Find(hit.code);
  const std::string tag = p.GpuTag(hit.bdf, hit.code);
  const std::string subject = "gpu/" + hit.bdf;
  const std::string name = entry != nullptr
                               ? entry->name
                               : "XID " + std::to_string(hit.code) + " (not in the catalogue)";
  std::optional<Signal> signal = SignalOf(p, hit.code, entry);
  std::string reason = "Xid" + std::to_string(hit.code);
  const bool nvlink5 = hit.code >= 144 && hit.code <= 150;
  if (hit.code == kDramQualifier || hit.code == kSramQualifier) {
    if (codes_on_gpu.count(48) > 0) return;  // qualifies the XID 48 next to it
  }
  if (hit.code == 48 && signal && codes_on_gpu.count(kSramQualifier) > 0) {
    reason = "Xid48Sram";  // SRAM uncorrectable: past the threshold, a repair case
    signal = Signal::kHardwareRepair;
  } else if (hit.code == 48 && codes_on_gpu.count(kDramQualifier) > 0) {
    reason = "Xid48Dram";
  }
  // NVLink5 lines state their fatality (section 2.1's decode); a non-fatal one is an Event.
  if (nvlink5 && hit.fatal == false) signal = std::nullopt;
  // The recovery hint is a condition of its own (CheckRecoveryActions); the XID is the news.
  if (signal == Signal::kRecoveryAction) signal = std::nullopt;
  if (signal) {
    p.Raise(Finding{ConditionType::kGpuXidFatal, subject, reason, *signal, hit.code,
                    p.Message(tag, name, *signal), "always", true});
    return;
  }
  std::string action = entry != nullptr ? ActionLabel(entry->action) : "NONE";
  if (entry != nullptr && entry->action == "stated") {
    action = hit.recovery ? RecoveryActionLabel(*hit.recovery) : "NONE";
  }
  p.Event(reason, subject, p.Message(tag, name, action));
  if (entry != nullptr && entry->severity == XidSeverity::kApp) CountAppRepeat(p, hit, tag);
}

void JudgeOtherKernelEvent(Poll& p, const KernelEvent& e) {
  switch (e.kind) {
    case KernelEventKind::kXid:
      return;  // judged with the NVML ones
    case KernelEventKind::kSxid: {
      const std::string subject = "nvswitch/" + e.bdf;
      const std::string tag = "[nvswitch=" + e.bdf + " code=" + std::to_string(e.code) + "]";
      if (e.fatal == true) {
        p.Raise(Finding{ConditionType::kGpuNvlinkDegraded, subject, "SxidFatal", Signal::kNvlink,
                        e.code, p.Message(tag, "NVSwitch fatal error: " + e.text, Signal::kNvlink),
                        "always", true});
      } else {
        p.Event("Sxid" + std::to_string(e.code), subject, p.Message(tag, e.text, "NONE"));
      }
      return;
    }
    case KernelEventKind::kFallenOffBus: {
      const std::string subject = e.bdf.empty() ? "node" : "gpu/" + e.bdf;
      const std::string tag = e.bdf.empty() ? "[gpu=unknown bdf=unknown]" : p.GpuTag(e.bdf);
      p.Raise(Finding{ConditionType::kGpuLost, subject, "FallenOffBus", Signal::kGpuLost,
                      std::nullopt,
                      p.Message(tag, "GPU has fallen off the bus (kernel log)", Signal::kGpuLost),
                      "always", true});
      return;
    }
    case KernelEventKind::kNicFatal: {
      const std::string subject = "nic/" + (e.bdf.empty() ? std::string("unknown") : e.bdf);
      // Not sticky: the driver may recover the device; the port checks see whether it did.
      p.Raise(Finding{ConditionType::kIbPortDegraded, subject, "NicFatal", Signal::kNicFatal,
                      std::nullopt,
                      p.Message("[nic=" + (e.bdf.empty() ? std::string("unknown") : e.bdf) + "]",
                                e.text, Signal::kNicFatal),
                      "kmsg", false});
      return;
    }
  }
}

}  // namespace

void CheckKernelEvents(Poll& p) {
  const NodeObservation& o = p.observation;
  std::vector<XidHit> hits;
  if (p.nvml_ok) {
    for (const GpuObservation& gpu : o.gpus) {
      for (int code : gpu.xids) hits.push_back(XidHit{GpuKey(gpu), code, {}, {}});
    }
  }
  for (const KernelEvent& e : o.kernel_events) {
    if (e.kind != KernelEventKind::kXid) continue;
    hits.push_back(XidHit{e.bdf, e.code, e.fatal, e.recovery_action});
    if (e.code == 154 && e.recovery_action) {
      if (*e.recovery_action == RecoveryAction::kNone) {
        p.state.stated_recovery.erase(e.bdf);
      } else {
        p.state.stated_recovery[e.bdf] = *e.recovery_action;
      }
    }
  }
  // NVML and the kernel log usually both report an XID: one hit per GPU and code, with what the
  // log line adds (its stated fatality).
  std::map<std::pair<std::string, int>, XidHit> unique;
  for (const XidHit& hit : hits) {
    auto [it, inserted] = unique.try_emplace({hit.bdf, hit.code}, hit);
    if (!inserted && hit.fatal) it->second.fatal = hit.fatal;
    if (!inserted && hit.recovery) it->second.recovery = hit.recovery;
  }
  std::map<std::string, std::set<int>> codes_by_gpu;
  for (const auto& [key, hit] : unique) codes_by_gpu[hit.bdf].insert(hit.code);
  for (const auto& [key, hit] : unique) JudgeXid(p, hit, codes_by_gpu[hit.bdf]);
  for (const KernelEvent& e : o.kernel_events) JudgeOtherKernelEvent(p, e);
  if (o.kernel_log_lost_records > 0) {
    p.Event("KernelLogGap", "node",
            "[node] " + std::to_string(o.kernel_log_lost_records) +
                " kernel log records were overwritten before they were read; XIDs among them "
                "were missed");
  }
}

}  // namespace quotient::nodehealth
