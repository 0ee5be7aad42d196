#include "nodehealth/poll.h"

#include <algorithm>

#include "nodehealth/bdf.h"

namespace quotient::nodehealth {

std::string FaultKey(ConditionType type, const std::string& subject, const std::string& reason) {
  return std::string(ConditionTypeName(type)) + "|" + subject + "|" + reason;
}

std::string GpuKey(const GpuObservation& gpu) {
  if (std::optional<std::string> bdf = NormalizeBdf(gpu.bus_id)) return *bdf;
  return gpu.uuid.empty() ? "index-" + std::to_string(gpu.index) : gpu.uuid;
}

std::string RecoveryActionLabel(RecoveryAction action) {
  switch (action) {
    case RecoveryAction::kNone:
      return "NONE";
    case RecoveryAction::kGpuReset:
      return ActionLabel("gpu-reset");
    case RecoveryAction::kNodeReboot:
      return ActionLabel("reboot");
    case RecoveryAction::kDrainP2p:
      return ActionLabel("drain-p2p");
    case RecoveryAction::kDrainAndReset:
      return ActionLabel("drain-and-reset");
  }
  return "NONE";
}

void Poll::Raise(Finding finding) {
  const std::string key = FaultKey(finding.type, finding.subject, finding.reason);
  auto [it, inserted] = findings.emplace(key, finding);
  if (!inserted) it->second.sticky = it->second.sticky || finding.sticky;
}

void Poll::Event(std::string reason, std::string subject, std::string message, bool warning) {
  const bool seen = std::any_of(events.begin(), events.end(), [&](const HealthEvent& e) {
    return e.reason == reason && e.subject == subject;
  });
  if (!seen) {
    events.push_back(
        HealthEvent{std::move(reason), std::move(message), std::move(subject), warning});
  }
}

std::string Poll::GpuTag(const std::string& bdf, std::optional<int> code) const {
  const bool is_bdf = NormalizeBdf(bdf).has_value();
  auto known = state.gpus.find(bdf);
  const std::string uuid = known != state.gpus.end() ? known->second.uuid
                           : is_bdf                  ? std::string("unknown")
                                                     : bdf;
  std::string tag = "[gpu=" + uuid + " bdf=" + (is_bdf ? bdf : std::string("unknown"));
  if (code) tag += " code=" + std::to_string(*code);
  return tag + "]";
}

std::string Poll::Message(const std::string& tag, const std::string& text, Signal signal) const {
  const std::vector<std::string>& ladder = policy.Of(signal).ladder;
  return Message(tag, text, ladder.empty() ? std::string("NONE") : ActionLabel(ladder.front()));
}

std::string Poll::Message(const std::string& tag, const std::string& text,
                          const std::string& action_label) const {
  return tag + " " + text + " - RecommendedAction: " + action_label;
}

WindowVerdict Poll::Window(const std::string& key, int64_t value, const RateRule& rule) {
  auto [it, inserted] = state.windows.try_emplace(key);
  return UpdateWindow(&it->second, inserted, value, now_s, rule);
}

RateRule Poll::RuleOf(Signal signal) const {
  const SignalPolicy& p = policy.Of(signal);
  return RateRule{p.window_seconds, p.max_per_window};
}

}  // namespace quotient::nodehealth
