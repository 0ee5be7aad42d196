#include "remediation/record_codec.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/time_text.h"

namespace quotient::remediation {
namespace {

using nlohmann::json;

void PutString(json& j, const char* key, const std::string& value) {
  if (!value.empty()) j[key] = value;
}
void PutTime(json& j, const char* key, Time value) {
  if (value != Time{}) j[key] = core::FormatRfc3339(value);
}

// Reads the fields of one JSON object; the first problem is kept, with the field's path.
class Reader {
 public:
  Reader(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void String(const char* key, std::string& out) {
    const json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Fail(key, "expected a string");
    out = v->get<std::string>();
  }
  void Int(const char* key, int& out) {
    const json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_number_integer()) return Fail(key, "expected an integer");
    const auto n = v->get<std::int64_t>();
    if (n < -1 || n > 1000000) return Fail(key, "out of range");
    out = static_cast<int>(n);
  }
  void TimeField(const char* key, Time& out) {
    const json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Fail(key, "expected an RFC 3339 timestamp");
    const Result<Time> t = core::ParseRfc3339(v->get<std::string>());
    if (!t.ok()) return Fail(key, t.message());
    out = *t;
  }
  void StateField(const char* key, State& out) {
    std::string name;
    String(key, name);
    if (name.empty() || !ok()) return;
    const std::optional<State> s = ParseState(name);
    if (!s) return Fail(key, "unknown state \"" + name + "\"");
    out = *s;
  }
  // The array under `key`, or nullptr (absent, or not an array: then an error).
  const json* Array(const char* key) {
    const json* v = Find(key);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Fail(key, "expected an array");
      return nullptr;
    }
    return v;
  }
  std::string Path(const char* key, size_t index) const {
    return path_ + key + "[" + std::to_string(index) + "].";
  }
  void Adopt(const Reader& inner) {
    if (ok() && !inner.ok()) error_ = inner.error();
  }
  void Fail(const std::string& key, const std::string& what) {
    if (ok()) error_ = "field \"" + path_ + key + "\": " + what;
  }

 private:
  const json* Find(const char* key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  const json& object_;
  std::string path_;
  std::string error_;
};

}  // namespace

std::string EncodeRecord(const NodeRecord& r) {
  json j = json::object();
  j["state"] = std::string(StateName(r.state));
  PutTime(j, "since", r.since);
  PutString(j, "incident", r.incident);
  PutTime(j, "incidentOpened", r.incident_opened);
  PutString(j, "faultClass", r.fault_class);
  PutString(j, "faultReason", r.fault_reason);
  if (r.rung >= 0) j["rung"] = r.rung;
  if (r.attempts > 0) j["attempts"] = r.attempts;
  PutString(j, "step", r.step);
  PutTime(j, "stepStarted", r.step_started);
  if (r.hold_down_since) j["holdDownSince"] = core::FormatRfc3339(*r.hold_down_since);
  if (!r.incidents.empty()) {
    json& list = j["incidents"] = json::array();
    for (Time t : r.incidents) list.push_back(core::FormatRfc3339(t));
  }
  PutTime(j, "backoffUntil", r.backoff_until);
  PutString(j, "waiting", r.waiting);
  PutString(j, "cancelReason", r.cancel_reason);
  for (const Evidence& e : r.evidence) {
    json item = json::object();
    item["type"] = e.type;
    PutString(item, "reason", e.reason);
    PutString(item, "message", e.message);
    PutTime(item, "since", e.since);
    j["evidence"].push_back(std::move(item));
  }
  for (const HistoryEntry& h : r.history) {
    json item = json::object();
    item["at"] = core::FormatRfc3339(h.at);
    item["state"] = std::string(StateName(h.state));
    PutString(item, "note", h.note);
    j["history"].push_back(std::move(item));
  }
  return j.dump();
}

Result<NodeRecord> DecodeRecord(std::string_view text) {
  const std::string where = std::string(kRecordAnnotation) + ": ";
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Result<NodeRecord>::Error(where + "not a JSON object");
  }
  NodeRecord r;
  Reader read(j, "");
  read.StateField("state", r.state);
  read.TimeField("since", r.since);
  read.String("incident", r.incident);
  read.TimeField("incidentOpened", r.incident_opened);
  read.String("faultClass", r.fault_class);
  read.String("faultReason", r.fault_reason);
  read.Int("rung", r.rung);
  read.Int("attempts", r.attempts);
  read.String("step", r.step);
  read.TimeField("stepStarted", r.step_started);
  Time hold{};
  read.TimeField("holdDownSince", hold);
  if (hold != Time{}) r.hold_down_since = hold;
  if (const json* list = read.Array("incidents")) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json& item = (*list)[i];
      const Result<Time> t = item.is_string() ? core::ParseRfc3339(item.get<std::string>())
                                              : Result<Time>::Error("expected a timestamp");
      if (!t.ok()) {
        read.Fail("incidents[" + std::to_string(i) + "]", t.message());
        break;
      }
      r.incidents.push_back(*t);
    }
  }
  read.TimeField("backoffUntil", r.backoff_until);
  read.String("waiting", r.waiting);
  read.String("cancelReason", r.cancel_reason);
  if (const json* list = read.Array("evidence")) {
    for (size_t i = 0; i < list->size() && read.ok(); ++i) {
      if (!(*list)[i].is_object()) {
        read.Fail("evidence[" + std::to_string(i) + "]", "expected an object");
        break;
      }
      Evidence e;
      Reader item((*list)[i], read.Path("evidence", i));
      item.String("type", e.type);
      item.String("reason", e.reason);
      item.String("message", e.message);
      item.TimeField("since", e.since);
      read.Adopt(item);
      r.evidence.push_back(std::move(e));
    }
  }
  if (const json* list = read.Array("history")) {
    for (size_t i = 0; i < list->size() && read.ok(); ++i) {
      if (!(*list)[i].is_object()) {
        read.Fail("history[" + std::to_string(i) + "]", "expected an object");
        break;
      }
      HistoryEntry h;
      Reader item((*list)[i], read.Path("history", i));
      item.TimeField("at", h.at);
      item.StateField("state", h.state);
      item.String("note", h.note);
      read.Adopt(item);
      r.history.push_back(std::move(h));
    }
  }
  if (!read.ok()) return Result<NodeRecord>::Error(where + read.error());
  return r;
}

}  // namespace quotient::remediation
