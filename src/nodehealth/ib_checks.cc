// The checks on InfiniBand ports (poll.h): state, physical state, rate against the node's
// expected rate, link_downed increments and the symbol-error rate, and ports that vanished.
#include <charconv>
#include <set>

#include "nodehealth/poll.h"

namespace quotient::nodehealth {
namespace {

constexpr int kPortActive = 4;
constexpr int kPhysLinkUp = 5;
// PMA PortCounters saturate at their width (section 2.3): link_downed 8 bits, symbol_error 16.
constexpr int64_t kLinkDownedMax = 255;
constexpr int64_t kSymbolErrorMax = 65535;

std::string PortTag(const std::string& device, int port) {
  return "[ib=" + device + " port=" + std::to_string(port) + "]";
}

// A saturated counter no longer counts: "at least max, rate unknown" until someone clears it.
void NoteSaturation(Poll& p, const std::string& counter_key, const std::string& subject,
                    const std::string& tag, const char* name, int64_t value, int64_t max) {
  if (value < max) {
    p.state.saturated.erase(counter_key);
    return;
  }
  if (p.state.saturated.insert(counter_key).second) {
    p.Event("CounterSaturated", subject,
            tag + " " + name + " is stuck at its maximum " + std::to_string(max) +
                ": new errors are invisible until the counters are cleared");
  }
}

void CheckPort(Poll& p, const IbPortReading& port) {
  const std::string subject = "ib/" + port.device + "/" + std::to_string(port.port);
  const std::string tag = PortTag(port.device, port.port);
  auto raise = [&](const std::string& reason, Signal signal, const std::string& text) {
    p.Raise(Finding{ConditionType::kIbPortDegraded, subject, reason, signal, std::nullopt,
                    p.Message(tag, text, signal), subject, false});
  };
  if (port.state != kPortActive) {
    raise("PortNotActive", Signal::kIbPort,
          "port state " + std::to_string(port.state) + ": " + port.state_name +
              ", expected 4: ACTIVE");
  }
  if (port.phys_state != kPhysLinkUp) {
    raise("PhysNotLinkUp", Signal::kIbPort,
          "physical state " + std::to_string(port.phys_state) + ": " + port.phys_state_name +
              ", expected 5: LinkUp");
  }
  const std::optional<int64_t> expected = p.observation.expected_ib_rate_gbps;
  if (expected && port.rate_mbps && *port.rate_mbps < *expected * 1000) {
    raise("RateBelowExpected", Signal::kIbRate,
          "rate " + port.rate_text + ", expected " + std::to_string(*expected) + " Gb/sec");
  }
  if (port.link_downed) {
    const std::string key = subject + "/link_downed";
    auto last = p.state.last_values.find(key);
    if (last != p.state.last_values.end() && *port.link_downed > last->second) {
      raise("LinkDowned", Signal::kIbLinkDowned,
            "link_downed rose from " + std::to_string(last->second) + " to " +
                std::to_string(*port.link_downed));
    }
    p.state.last_values[key] = *port.link_downed;
    NoteSaturation(p, key, subject, tag, "link_downed", *port.link_downed, kLinkDownedMax);
  }
  if (port.symbol_error) {
    const std::string key = subject + "/symbol_error";
    const SignalPolicy& sp = p.policy.Of(Signal::kIbSymbolErrors);
    const WindowVerdict v = p.Window(key, *port.symbol_error, p.RuleOf(Signal::kIbSymbolErrors));
    if (v.bad_windows >= sp.count) {
      raise("SymbolErrorRate", Signal::kIbSymbolErrors,
            "symbol errors over " + std::to_string(sp.max_per_window) + " per " +
                std::to_string(sp.window_seconds) + " s");
    } else if (v.newly_bad) {
      p.Event("SymbolErrorRate", subject,
              tag + " symbol errors over " + std::to_string(sp.max_per_window) + " in a window");
    }
    NoteSaturation(p, key, subject, tag, "symbol_error", *port.symbol_error, kSymbolErrorMax);
  }
}

}  // namespace

void CheckInfiniband(Poll& p) {
  const NodeObservation& o = p.observation;
  if (!o.infiniband_readable) return;
  std::set<std::string> present;
  for (const IbPortReading& port : o.ib_ports) {
    const std::string name = port.device + "/" + std::to_string(port.port);
    present.insert(name);
    p.state.ib_ports.insert(name);
    // Only a port that is there can be seen healthy; a vanished one keeps its faults.
    p.observed.insert("ib/" + name);
    CheckPort(p, port);
  }
  for (const std::string& name : p.state.ib_ports) {
    if (present.count(name) > 0) continue;
    const size_t slash = name.rfind('/');
    const std::string device = name.substr(0, slash);
    int port = 0;  // the name came from the state file: read it without trusting it
    const std::string number = slash == std::string::npos ? "" : name.substr(slash + 1);
    std::from_chars(number.data(), number.data() + number.size(), port);
    p.Raise(Finding{ConditionType::kIbPortDegraded, "ib/" + name, "DeviceMissing", Signal::kIbPort,
                    std::nullopt,
                    p.Message(PortTag(device, port),
                              "port seen earlier this boot is gone from sysfs", Signal::kIbPort),
                    "ib", false});
  }
}

}  // namespace quotient::nodehealth
