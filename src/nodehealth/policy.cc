#include "nodehealth/policy.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <limits>

namespace quotient::nodehealth {
namespace {

using Ladder = std::vector<std::string>;

SignalPolicy Immediate(Scope scope, Ladder ladder) {
  return SignalPolicy{scope, ConfirmKind::kImmediate, 1, 0, 0, std::move(ladder)};
}
SignalPolicy Polls(Scope scope, int count, Ladder ladder) {
  return SignalPolicy{scope, ConfirmKind::kPolls, count, 0, 0, std::move(ladder)};
}
SignalPolicy Windows(Scope scope, int count, int64_t window_seconds, int64_t max_per_window,
                     Ladder ladder) {
  return SignalPolicy{scope,          ConfirmKind::kWindows, count,
                      window_seconds, max_per_window,        std::move(ladder)};
}

std::string_view ConfirmName(ConfirmKind kind) {
  switch (kind) {
    case ConfirmKind::kImmediate:
      return "immediate";
    case ConfirmKind::kPolls:
      return "polls";
    case ConfirmKind::kWindows:
      return "windows";
  }
  return "immediate";
}

// The reader: every error names the path of the key at fault.
class Reader {
 public:
  Status Integer(const YAML::Node& node, const std::string& path, int64_t min, int64_t max,
                 int64_t& out) const {
    const std::string text = node.IsScalar() ? node.Scalar() : std::string();
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!node.IsScalar() || ec != std::errc() || end != text.data() + text.size() || value < min ||
        value > max) {
      return Status::Error(path + ": must be an integer in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], got '" + Show(node) + "'");
    }
    out = value;
    return Status::Ok();
  }

  Status Int(const YAML::Node& node, const std::string& path, int min, int& out) const {
    int64_t value = 0;
    Status status = Integer(node, path, min, std::numeric_limits<int>::max(), value);
    if (status.ok()) out = static_cast<int>(value);
    return status;
  }

  // The keys of a map, each checked against `allowed`.
  Status Map(const YAML::Node& node, const std::string& path,
             std::initializer_list<std::string_view> allowed) const {
    if (!node.IsMap()) return Status::Error(path + ": must be a map, got '" + Show(node) + "'");
    for (const auto& item : node) {
      const std::string key = item.first.Scalar();
      bool known = false;
      for (std::string_view name : allowed) known = known || name == key;
      if (!known) return Status::Error(path + ": unknown field '" + key + "'");
    }
    return Status::Ok();
  }

  static std::string Show(const YAML::Node& node) {
    if (node.IsScalar()) return node.Scalar();
    if (node.IsMap()) return "a map";
    if (node.IsSequence()) return "a list";
    return "nothing";
  }
};

Status ReadLadder(const YAML::Node& node, const std::string& path, Signal signal, Ladder& out) {
  if (!node.IsSequence()) {
    return Status::Error(path + ": must be a list of actions, got '" + Reader::Show(node) + "'");
  }
  Ladder ladder;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    const std::string action = node[i].IsScalar() ? node[i].Scalar() : "";
    if (!IsKnownAction(action)) {
      return Status::Error(where + ": unknown action '" + Reader::Show(node[i]) + "'");
    }
    if (action == "stated" && signal != Signal::kRecoveryAction) {
      return Status::Error(where + ": 'stated' applies only to recovery-action");
    }
    ladder.push_back(action);
  }
  out = std::move(ladder);
  return Status::Ok();
}

Status ReadSignal(const YAML::Node& node, const std::string& path, Signal signal,
                  SignalPolicy& policy) {
  const Reader r;
  Status status = r.Map(
      node, path, {"scope", "confirm", "count", "window_seconds", "max_per_window", "ladder"});
  if (!status.ok()) return status;
  const bool rate = IsRateSignal(signal);
  if (node["scope"]) {
    const std::string scope = node["scope"].IsScalar() ? node["scope"].Scalar() : "";
    if (scope != "gpu" && scope != "node") {
      return Status::Error(path + ".scope: must be gpu or node, got '" +
                           Reader::Show(node["scope"]) + "'");
    }
    policy.scope = scope == "gpu" ? Scope::kGpu : Scope::kNode;
  }
  if (node["confirm"]) {
    const std::string confirm = node["confirm"].IsScalar() ? node["confirm"].Scalar() : "";
    if (rate && confirm != "windows") {
      return Status::Error(path + ".confirm: a rate signal is confirmed by windows, got '" +
                           Reader::Show(node["confirm"]) + "'");
    }
    if (!rate && confirm != "immediate" && confirm != "polls") {
      return Status::Error(path + ".confirm: must be immediate or polls, got '" +
                           Reader::Show(node["confirm"]) + "'");
    }
    policy.confirm = confirm == "windows" ? ConfirmKind::kWindows
                     : confirm == "polls" ? ConfirmKind::kPolls
                                          : ConfirmKind::kImmediate;
    if (policy.confirm == ConfirmKind::kImmediate) policy.count = 1;
  }
  if (node["count"]) {
    if (policy.confirm == ConfirmKind::kImmediate) {
      return Status::Error(path + ".count: applies to confirm: polls or windows");
    }
    status = r.Int(node["count"], path + ".count", 1, policy.count);
    if (!status.ok()) return status;
  }
  for (const char* field : {"window_seconds", "max_per_window"}) {
    if (node[field] && !rate) {
      return Status::Error(path + "." + field + ": applies only to rate signals");
    }
  }
  if (node["window_seconds"]) {
    status = r.Integer(node["window_seconds"], path + ".window_seconds", 1,
                       std::numeric_limits<int32_t>::max(), policy.window_seconds);
    if (!status.ok()) return status;
  }
  if (node["max_per_window"]) {
    status = r.Integer(node["max_per_window"], path + ".max_per_window", 0,
                       std::numeric_limits<int64_t>::max(), policy.max_per_window);
    if (!status.ok()) return status;
  }
  if (node["ladder"]) return ReadLadder(node["ladder"], path + ".ladder", signal, policy.ladder);
  return Status::Ok();
}

Status ReadXidSignals(const YAML::Node& node, Policy& policy) {
  if (!node.IsMap()) return Status::Error("xid_signals: must be a map of XID code to signal");
  const Reader r;
  for (const auto& item : node) {
    int code = 0;
    const std::string key = item.first.Scalar();
    Status status = r.Int(item.first, "xid_signals." + key, 1, code);
    if (!status.ok()) return Status::Error("xid_signals: key '" + key + "' is not an XID code");
    const std::string value = item.second.IsScalar() ? item.second.Scalar() : "";
    if (value == "event") {
      policy.xid_signals[code] = std::nullopt;
      continue;
    }
    const std::optional<Signal> signal = ParseSignal(value);
    if (!signal) {
      return Status::Error("xid_signals." + key + ": '" + Reader::Show(item.second) +
                           "' is not a signal or 'event'");
    }
    policy.xid_signals[code] = *signal;
  }
  return Status::Ok();
}

Status ReadRoot(const YAML::Node& root, Policy& policy) {
  const Reader r;
  Status status =
      r.Map(root, "policy",
            {"healthy_polls_to_clear", "signals", "xid_signals", "sbe_burst", "app_xid_repeat"});
  if (!status.ok()) return status;
  if (root["healthy_polls_to_clear"]) {
    status = r.Int(root["healthy_polls_to_clear"], "healthy_polls_to_clear", 1,
                   policy.healthy_polls_to_clear);
    if (!status.ok()) return status;
  }
  if (const YAML::Node burst = root["sbe_burst"]) {
    status = r.Map(burst, "sbe_burst", {"window_seconds", "max_per_window"});
    if (status.ok() && burst["window_seconds"]) {
      status = r.Integer(burst["window_seconds"], "sbe_burst.window_seconds", 1,
                         std::numeric_limits<int32_t>::max(), policy.sbe_burst.window_seconds);
    }
    if (status.ok() && burst["max_per_window"]) {
      status = r.Integer(burst["max_per_window"], "sbe_burst.max_per_window", 0,
                         std::numeric_limits<int64_t>::max(), policy.sbe_burst.max_per_window);
    }
    if (!status.ok()) return status;
  }
  if (const YAML::Node repeat = root["app_xid_repeat"]) {
    status = r.Map(repeat, "app_xid_repeat", {"window_seconds", "count"});
    if (status.ok() && repeat["window_seconds"]) {
      status = r.Integer(repeat["window_seconds"], "app_xid_repeat.window_seconds", 1,
                         std::numeric_limits<int32_t>::max(), policy.app_xid_repeat_window_seconds);
    }
    if (status.ok() && repeat["count"]) {
      status = r.Int(repeat["count"], "app_xid_repeat.count", 1, policy.app_xid_repeat_count);
    }
    if (!status.ok()) return status;
  }
  if (const YAML::Node signals = root["signals"]) {
    if (!signals.IsMap()) return Status::Error("signals: must be a map of signal to settings");
    for (const auto& item : signals) {
      const std::string name = item.first.Scalar();
      const std::optional<Signal> signal = ParseSignal(name);
      if (!signal) return Status::Error("signals." + name + ": unknown signal");
      status = ReadSignal(item.second, "signals." + name, *signal, policy.Of(*signal));
      if (!status.ok()) return status;
    }
  }
  if (root["xid_signals"]) return ReadXidSignals(root["xid_signals"], policy);
  return Status::Ok();
}

}  // namespace

Policy DefaultPolicy() {
  Policy p;
  const Ladder ib_ladder = {"port-reset", "driver-reload", "reboot", "escalate"};
  p.Of(Signal::kGpuLost) = Immediate(Scope::kNode, {"power-cycle", "escalate"});
  p.Of(Signal::kMemoryUncorrectable) = Immediate(Scope::kGpu, {"gpu-reset", "escalate"});
  p.Of(Signal::kHardwareRepair) = Immediate(Scope::kNode, {"escalate"});
  // Pending remaps wait for the next drain: the GPU is marked unhealthy, nothing is forced.
  p.Of(Signal::kRemapPending) = Immediate(Scope::kGpu, {"gpu-reset"});
  p.Of(Signal::kGpuFatal) = Immediate(Scope::kGpu, {"gpu-reset", "reboot", "escalate"});
  p.Of(Signal::kRebootRequired) = Immediate(Scope::kNode, {"reboot", "escalate"});
  p.Of(Signal::kNvlink) = Immediate(Scope::kNode, {"gpu-reset", "reboot", "escalate"});
  p.Of(Signal::kRecoveryAction) = Immediate(Scope::kGpu, {"stated", "escalate"});
  p.Of(Signal::kPcieWidth) = Polls(Scope::kGpu, 2, {"reboot", "escalate"});
  p.Of(Signal::kPcieGen) = Polls(Scope::kGpu, 2, {"reboot", "escalate"});
  // Rate thresholds are ours, to be tuned on hardware (section 2.8): a healthy link counts
  // (nearly) nothing, so these flag sustained error traffic, not single bursts.
  p.Of(Signal::kPcieReplay) = Windows(Scope::kGpu, 3, 300, 100, {"reboot", "escalate"});
  const Ladder nvlink_ladder = {"gpu-reset", "reboot", "escalate"};
  p.Of(Signal::kNvlinkReplay) = Windows(Scope::kNode, 3, 300, 100, nvlink_ladder);
  p.Of(Signal::kNvlinkRecovery) = Windows(Scope::kNode, 3, 300, 5, nvlink_ladder);
  p.Of(Signal::kNvlinkCrc) = Windows(Scope::kNode, 3, 300, 100, nvlink_ladder);
  p.Of(Signal::kIbPort) = Polls(Scope::kNode, 3, ib_ladder);
  p.Of(Signal::kIbLinkDowned) = Immediate(Scope::kNode, ib_ladder);
  // NVSentinel's BER limit: more than 120 symbol errors in an hour is fatal.
  p.Of(Signal::kIbSymbolErrors) = Windows(Scope::kNode, 1, 3600, 120, ib_ladder);
  p.Of(Signal::kIbRate) = Polls(Scope::kNode, 3, {"port-reset", "escalate"});
  p.Of(Signal::kNicFatal) = Immediate(Scope::kNode, {"driver-reload", "reboot", "escalate"});
  // A hung NVML makes conditions Unknown; nothing automatic happens on that alone.
  p.Of(Signal::kDriverUnresponsive) = Immediate(Scope::kNode, {});
  p.Of(Signal::kXidUnknown) = Immediate(Scope::kGpu, {"escalate"});
  return p;
}

Result<Policy> ParsePolicyYaml(std::string_view yaml, const Policy& base) {
  Policy policy = base;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Result<Policy>::Error("policy: not YAML: " + std::string(e.what()));
  }
  if (root.IsNull()) return policy;  // an empty ConfigMap key: the defaults
  Status status = ReadRoot(root, policy);
  if (!status.ok()) return status;
  return policy;
}

std::string PolicyToYaml(const Policy& policy) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "healthy_polls_to_clear" << YAML::Value << policy.healthy_polls_to_clear;
  out << YAML::Key << "sbe_burst" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "window_seconds" << YAML::Value << policy.sbe_burst.window_seconds;
  out << YAML::Key << "max_per_window" << YAML::Value << policy.sbe_burst.max_per_window;
  out << YAML::EndMap;
  out << YAML::Key << "app_xid_repeat" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "window_seconds" << YAML::Value << policy.app_xid_repeat_window_seconds;
  out << YAML::Key << "count" << YAML::Value << policy.app_xid_repeat_count;
  out << YAML::EndMap;
  out << YAML::Key << "signals" << YAML::Value << YAML::BeginMap;
  for (Signal signal : kAllSignals) {
    const SignalPolicy& s = policy.Of(signal);
    out << YAML::Key << std::string(SignalName(signal)) << YAML::Value << YAML::Flow
        << YAML::BeginMap;
    out << YAML::Key << "scope" << YAML::Value << std::string(ScopeName(s.scope));
    out << YAML::Key << "confirm" << YAML::Value << std::string(ConfirmName(s.confirm));
    if (s.confirm != ConfirmKind::kImmediate) out << YAML::Key << "count" << YAML::Value << s.count;
    if (s.confirm == ConfirmKind::kWindows) {
      out << YAML::Key << "window_seconds" << YAML::Value << s.window_seconds;
      out << YAML::Key << "max_per_window" << YAML::Value << s.max_per_window;
    }
    out << YAML::Key << "ladder" << YAML::Value << YAML::Flow << s.ladder;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "xid_signals" << YAML::Value << YAML::BeginMap;
  for (const auto& [code, signal] : policy.xid_signals) {
    out << YAML::Key << code << YAML::Value
        << (signal ? std::string(SignalName(*signal)) : std::string("event"));
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string_view ScopeName(Scope scope) { return scope == Scope::kGpu ? "gpu" : "node"; }

}  // namespace quotient::nodehealth
