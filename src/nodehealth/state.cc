#include "nodehealth/state.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace quotient::nodehealth {
namespace {

using nlohmann::json;
constexpr int kFormatVersion = 1;

const char* RecoveryName(RecoveryAction action) {
  switch (action) {
    case RecoveryAction::kNone:
      return "NONE";
    case RecoveryAction::kGpuReset:
      return "GPU_RESET";
    case RecoveryAction::kNodeReboot:
      return "NODE_REBOOT";
    case RecoveryAction::kDrainP2p:
      return "DRAIN_P2P";
    case RecoveryAction::kDrainAndReset:
      return "DRAIN_AND_RESET";
  }
  return "NONE";
}

// The readers throw json::exception on a missing key or a wrong type, and BadState on names our
// enumerations do not know; ParseState turns both into an error.
struct BadState : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void Bad(const std::string& what) { throw BadState(what); }

RecoveryAction ParseRecovery(const std::string& name) {
  for (RecoveryAction a :
       {RecoveryAction::kNone, RecoveryAction::kGpuReset, RecoveryAction::kNodeReboot,
        RecoveryAction::kDrainP2p, RecoveryAction::kDrainAndReset}) {
    if (name == RecoveryName(a)) return a;
  }
  Bad("unknown recovery action '" + name + "'");
}

ConditionStatus ParseStatus(const std::string& name) {
  for (ConditionStatus s :
       {ConditionStatus::kTrue, ConditionStatus::kFalse, ConditionStatus::kUnknown}) {
    if (name == ConditionStatusName(s)) return s;
  }
  Bad("unknown condition status '" + name + "'");
}

ConditionType ParseType(const std::string& name) {
  const std::optional<ConditionType> type = ParseConditionType(name);
  if (!type) Bad("unknown condition type '" + name + "'");
  return *type;
}

json FaultToJson(const FaultRecord& r) {
  json j = {{"type", ConditionTypeName(r.type)},
            {"subject", r.subject},
            {"reason", r.reason},
            {"signal", SignalName(r.signal)},
            {"message", r.message},
            {"domain", r.domain},
            {"sticky", r.sticky},
            {"active", r.active},
            {"consecutive_bad", r.consecutive_bad},
            {"consecutive_good", r.consecutive_good},
            {"first_seen_s", r.first_seen_s},
            {"active_since_s", r.active_since_s}};
  if (r.code) j["code"] = *r.code;
  return j;
}

FaultRecord FaultFromJson(const json& j) {
  FaultRecord r;
  r.type = ParseType(j.at("type").get<std::string>());
  r.subject = j.at("subject").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  const std::optional<Signal> signal = ParseSignal(j.at("signal").get<std::string>());
  if (!signal) Bad("unknown signal '" + j.at("signal").get<std::string>() + "'");
  r.signal = *signal;
  if (j.contains("code")) r.code = j.at("code").get<int>();
  r.message = j.at("message").get<std::string>();
  r.domain = j.at("domain").get<std::string>();
  r.sticky = j.at("sticky").get<bool>();
  r.active = j.at("active").get<bool>();
  r.consecutive_bad = j.at("consecutive_bad").get<int>();
  r.consecutive_good = j.at("consecutive_good").get<int>();
  r.first_seen_s = j.at("first_seen_s").get<int64_t>();
  r.active_since_s = j.at("active_since_s").get<int64_t>();
  return r;
}

HealthState FromJson(const json& j) {
  if (j.at("version").get<int>() != kFormatVersion) {
    Bad("format version " + j.at("version").dump() + ", expected " +
        std::to_string(kFormatVersion));
  }
  HealthState s;
  s.boot_id = j.at("boot_id").get<std::string>();
  s.last_poll_s = j.at("last_poll_s").get<int64_t>();
  if (j.contains("last_validation_s")) s.last_validation_s = j["last_validation_s"].get<int64_t>();
  const json& log = j.at("kernel_log");
  if (log.contains("offset")) s.kernel_log.offset = log["offset"].get<uint64_t>();
  if (log.contains("last_seq")) s.kernel_log.last_seq = log["last_seq"].get<uint64_t>();
  for (const json& f : j.at("faults")) {
    FaultRecord r = FaultFromJson(f);
    s.faults[FaultKey(r.type, r.subject, r.reason)] = std::move(r);
  }
  for (const auto& [key, w] : j.at("windows").items()) {
    s.windows[key] =
        CounterWindow{w.at("window_start_s").get<int64_t>(), w.at("start_value").get<int64_t>(),
                      w.at("last_value").get<int64_t>(), w.at("bad_windows").get<int>(),
                      w.at("current_bad").get<bool>()};
  }
  for (const auto& [key, v] : j.at("last_values").items()) s.last_values[key] = v.get<int64_t>();
  for (const json& v : j.at("saturated")) s.saturated.insert(v.get<std::string>());
  for (const auto& [key, g] : j.at("gpus").items()) {
    s.gpus[key] = KnownGpu{g.at("index").get<int>(), g.at("uuid").get<std::string>()};
  }
  for (const json& v : j.at("ib_ports")) s.ib_ports.insert(v.get<std::string>());
  for (const json& v : j.at("active_nvlinks")) s.active_nvlinks.insert(v.get<std::string>());
  for (const auto& [key, v] : j.at("stated_recovery").items()) {
    s.stated_recovery[key] = ParseRecovery(v.get<std::string>());
  }
  for (const auto& [key, r] : j.at("app_xids").items()) {
    s.app_xids[key] = RepeatCount{r.at("window_start_s").get<int64_t>(), r.at("count").get<int>()};
  }
  for (const auto& [key, c] : j.at("conditions").items()) {
    s.conditions[ParseType(key)] = ConditionRecord{ParseStatus(c.at("status").get<std::string>()),
                                                   c.at("since_s").get<int64_t>()};
  }
  return s;
}

}  // namespace

std::string SerializeState(const HealthState& s) {
  json j = {{"version", kFormatVersion}, {"boot_id", s.boot_id}, {"last_poll_s", s.last_poll_s}};
  if (s.last_validation_s) j["last_validation_s"] = *s.last_validation_s;
  json log = json::object();
  if (s.kernel_log.offset) log["offset"] = *s.kernel_log.offset;
  if (s.kernel_log.last_seq) log["last_seq"] = *s.kernel_log.last_seq;
  j["kernel_log"] = log;
  j["faults"] = json::array();
  for (const auto& [key, r] : s.faults) j["faults"].push_back(FaultToJson(r));
  j["windows"] = json::object();
  for (const auto& [key, w] : s.windows) {
    j["windows"][key] = {{"window_start_s", w.window_start_s},
                         {"start_value", w.start_value},
                         {"last_value", w.last_value},
                         {"bad_windows", w.bad_windows},
                         {"current_bad", w.current_bad}};
  }
  j["last_values"] = json::object();
  for (const auto& [key, v] : s.last_values) j["last_values"][key] = v;
  j["saturated"] = s.saturated;
  j["gpus"] = json::object();
  for (const auto& [key, g] : s.gpus) j["gpus"][key] = {{"index", g.index}, {"uuid", g.uuid}};
  j["ib_ports"] = s.ib_ports;
  j["active_nvlinks"] = s.active_nvlinks;
  j["stated_recovery"] = json::object();
  for (const auto& [key, a] : s.stated_recovery) j["stated_recovery"][key] = RecoveryName(a);
  j["app_xids"] = json::object();
  for (const auto& [key, r] : s.app_xids) {
    j["app_xids"][key] = {{"window_start_s", r.window_start_s}, {"count", r.count}};
  }
  j["conditions"] = json::object();
  for (const auto& [type, c] : s.conditions) {
    j["conditions"][std::string(ConditionTypeName(type))] = {
        {"status", ConditionStatusName(c.status)}, {"since_s", c.since_s}};
  }
  return j.dump(1) + "\n";
}

Result<HealthState> ParseState(std::string_view text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Result<HealthState>::Error("not JSON");
  try {
    return FromJson(j);
  } catch (const json::exception& e) {
    return Result<HealthState>::Error(e.what());
  } catch (const BadState& e) {
    return Result<HealthState>::Error(e.what());
  }
}

Result<std::string> ReadBootId(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return Result<std::string>::Error("boot id " + path.string() + ": cannot read");
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return Result<std::string>::Error("boot id " + path.string() + ": empty");
  return line;
}

LoadedState LoadState(const std::filesystem::path& path, std::string_view boot_id) {
  LoadedState loaded;
  loaded.state.boot_id = std::string(boot_id);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    loaded.origin = StateOrigin::kFresh;
    loaded.note = "no state file at " + path.string();
    return loaded;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    loaded.origin = StateOrigin::kCorrupt;
    loaded.note = "state file " + path.string() + ": cannot read";
    return loaded;
  }
  Result<HealthState> parsed = ParseState(text.str());
  if (!parsed.ok()) {
    loaded.origin = StateOrigin::kCorrupt;
    loaded.note = "state file " + path.string() + " ignored: " + parsed.message();
    return loaded;
  }
  if (parsed->boot_id != boot_id) {
    loaded.origin = StateOrigin::kNewBoot;
    loaded.note = "state file " + path.string() + " is from boot " + parsed->boot_id +
                  ": the node rebooted, starting afresh";
    return loaded;
  }
  loaded.state = std::move(parsed).value();
  loaded.origin = StateOrigin::kLoaded;
  return loaded;
}

Status SaveState(const std::filesystem::path& path, const HealthState& state) {
  const std::string text = SerializeState(state);
  const std::filesystem::path temporary = path.string() + ".tmp";
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    return Status::Error("state file " + temporary.string() + ": " + std::strerror(errno));
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() &&
                       std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const int error = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return Status::Error("state file " + temporary.string() + ": " + std::strerror(error));
  }
  // rename is atomic: a reader (or a crash) sees the old file or the new one, never half.
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return Status::Error("state file " + path.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace quotient::nodehealth
