// yaml-cpp throws on malformed text; the exception is caught here and nothing else of yaml-cpp's
// conversions is used (scalars are read as text and parsed here), so no exception escapes.
#include "remediation/config_yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <exception>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "core/time_text.h"
#include "remediation/view.h"

namespace quotient::remediation {
namespace {

class ConfigReader {
 public:
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }

  void Fail(const std::string& path, const std::string& what) {
    if (ok()) error_ = path + ": " + what;
  }

  // Calls `field(key, value, path)` for each entry of the map at `node`; a key `field` does not
  // know (it returns false) is an error.
  void Map(
      const YAML::Node& node, const std::string& path,
      const std::function<bool(const std::string&, const YAML::Node&, const std::string&)>& field) {
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) return Fail(path.empty() ? "(document)" : path, "expected a mapping");
    for (const auto& entry : node) {
      if (!ok()) return;
      const std::string key = entry.first.Scalar();
      const std::string child = path.empty() ? key : path + "." + key;
      if (!field(key, entry.second, child)) Fail(child, "unknown key");
    }
  }

  std::string Scalar(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      Fail(path, "expected a scalar");
      return "";
    }
    return node.Scalar();
  }

  void Bool(const YAML::Node& node, const std::string& path, bool& out) {
    const std::string s = Scalar(node, path);
    if (s == "true") {
      out = true;
    } else if (s == "false") {
      out = false;
    } else {
      Fail(path, "expected true or false, got \"" + s + "\"");
    }
  }

  void Int(const YAML::Node& node, const std::string& path, int& out, int max) {
    const std::string s = Scalar(node, path);
    int value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || value < 0 || value > max) {
      return Fail(path,
                  "expected an integer from 0 to " + std::to_string(max) + ", got \"" + s + "\"");
    }
    out = value;
  }

  void DurationField(const YAML::Node& node, const std::string& path, Duration& out) {
    const std::string s = Scalar(node, path);
    const Result<std::chrono::seconds> d = core::ParseGoDuration(s);
    if (!d.ok()) return Fail(path, d.message());
    if (d->count() < 0) return Fail(path, "must not be negative, got \"" + s + "\"");
    out = *d;
  }

  void TimeField(const YAML::Node& node, const std::string& path, std::optional<Time>& out) {
    const Result<Time> t = core::ParseRfc3339(Scalar(node, path));
    if (!t.ok()) return Fail(path, t.message());
    out = *t;
  }

  void Strings(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.IsSequence()) return Fail(path, "expected a list");
    out.clear();
    for (size_t i = 0; i < node.size() && ok(); ++i) {
      out.push_back(Scalar(node[i], path + "[" + std::to_string(i) + "]"));
    }
  }

  void Ladder(const YAML::Node& node, const std::string& path, std::vector<Rung>& out);
  void Step(const YAML::Node& node, const std::string& path, StepSpec& out);
  void Steps(const YAML::Node& node, const std::string& path, std::map<std::string, StepSpec>& out);
  void Policy(const YAML::Node& node, const std::string& path, FaultPolicy& out);
  void Rails(const YAML::Node& node, const std::string& path, remediation::Rails& out);
  void Document(const YAML::Node& node, Config& out);

 private:
  std::string error_;
};

// A step name becomes part of an object name (<node>-<incident>-<step>-<attempt>): a DNS label.
bool IsStepName(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s != kValidationStep;
}

void ConfigReader::Ladder(const YAML::Node& node, const std::string& path, std::vector<Rung>& out) {
  if (!node.IsSequence()) return Fail(path, "expected a list of {step, timeout}");
  out.clear();
  for (size_t i = 0; i < node.size() && ok(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    Rung rung;
    bool has_step = false;
    Map(node[i], at, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
      if (key == "step") {
        rung.step = Scalar(v, p);
        has_step = true;
        if (ok() && !IsStepName(rung.step)) {
          Fail(p, "\"" + rung.step + "\" is not a step name (a DNS label, not \"validate\")");
        }
      } else if (key == "timeout") {
        DurationField(v, p, rung.timeout);
      } else {
        return false;
      }
      return true;
    });
    if (!ok()) return;
    if (!has_step) return Fail(at + ".step", "missing");
    if (rung.timeout.count() <= 0) return Fail(at + ".timeout", "missing or zero");
    out.push_back(rung);
  }
}

// A YAML tree as JSON, for the Job template the controller sends to the API server. Plain
// scalars are typed by YAML 1.2's core schema (so `backoffLimit: 0` stays a number); quoted ones
// stay strings.
nlohmann::json ToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& entry : node) out[entry.first.Scalar()] = ToJson(entry.second);
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(ToJson(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;  // quoted
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~") return nullptr;
  int64_t i = 0;
  if (const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      ec == std::errc() && end == s.data() + s.size()) {
    return i;
  }
  return s;
}

void ConfigReader::Step(const YAML::Node& node, const std::string& path, StepSpec& out) {
  out = StepSpec{};
  bool has_kind = false;
  Map(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (key == "kind") {
      const std::string kind = Scalar(v, p);
      has_kind = true;
      if (kind == "pod") {
        out.kind = StepKind::kPod;
      } else if (kind == "job") {
        out.kind = StepKind::kJob;
      } else if (kind == "webhook") {
        out.kind = StepKind::kWebhook;
      } else {
        Fail(p, "expected pod, job or webhook, got \"" + kind + "\"");
      }
    } else if (key == "command") {
      Strings(v, p, out.command);
    } else if (key == "succeedsOnReboot") {
      Bool(v, p, out.succeeds_on_reboot);
    } else if (key == "jobTemplate") {
      if (v.IsMap()) {
        out.job_spec_json = ToJson(v).dump();
      } else {
        Fail(p, "expected a mapping (a batch/v1 JobSpec)");
      }
    } else if (key == "url") {
      out.url = Scalar(v, p);
    } else if (key != "enabled") {  // read by the caller
      return false;
    }
    return true;
  });
  if (!ok()) return;
  if (!has_kind) return Fail(path + ".kind", "missing (pod, job or webhook)");
  if (out.kind == StepKind::kPod && out.command.empty()) {
    return Fail(path + ".command", "a pod step needs a command");
  }
  if (out.kind == StepKind::kJob && out.job_spec_json.empty()) {
    return Fail(path + ".jobTemplate", "a job step needs a jobTemplate");
  }
  if (out.kind == StepKind::kWebhook &&
      !(out.url.starts_with("https://") || out.url.starts_with("http://"))) {
    return Fail(path + ".url", "expected an http:// or https:// URL, got \"" + out.url + "\"");
  }
}

void ConfigReader::Steps(const YAML::Node& node, const std::string& path,
                         std::map<std::string, StepSpec>& out) {
  Map(node, path, [&](const std::string& name, const YAML::Node& entry, const std::string& p) {
    if (!IsStepName(name)) {
      Fail(p, "\"" + name + "\" is not a step name (a DNS label, not \"validate\")");
      return true;
    }
    bool enabled = true;
    if (entry.IsMap() && entry["enabled"]) Bool(entry["enabled"], p + ".enabled", enabled);
    if (!enabled) {
      out.erase(name);
    } else {
      Step(entry, p, out[name]);  // replaces the default of that name as a whole
    }
    return true;
  });
}

void ConfigReader::Policy(const YAML::Node& node, const std::string& path, FaultPolicy& out) {
  Map(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (key == "confirm") {
      DurationField(v, p, out.confirm);
    } else if (key == "ignoreReasons") {
      Strings(v, p, out.ignore_reasons);
    } else if (key == "ladder") {
      Ladder(v, p, out.ladder);
    } else if (key == "reasonLadders") {
      out.reason_ladders.clear();
      Map(v, p, [&](const std::string& reason, const YAML::Node& l, const std::string& lp) {
        Ladder(l, lp, out.reason_ladders[reason]);
        return true;
      });
    } else if (key != "enabled") {  // read by the caller
      return false;
    }
    return true;
  });
}

void ConfigReader::Rails(const YAML::Node& node, const std::string& path, remediation::Rails& out) {
  constexpr int kMaxCount = 100000;
  const std::map<std::string, std::pair<int*, int>> ints = {
      {"maxPerDomain", {&out.max_per_domain, kMaxCount}},
      {"maxPerPool", {&out.max_per_pool, kMaxCount}},
      {"maxGlobal", {&out.max_global, kMaxCount}},
      {"breakerPercent", {&out.breaker_percent, 100}},
      {"breakerMinNodes", {&out.breaker_min_nodes, kMaxCount}},
      {"breakerSameReason", {&out.breaker_same_reason, kMaxCount}},
      {"recurrenceBudget", {&out.recurrence_budget, kMaxCount}}};
  const std::map<std::string, Duration*> durations = {{"breakerWindow", &out.breaker_window},
                                                      {"backoffBase", &out.backoff_base},
                                                      {"backoffMax", &out.backoff_max},
                                                      {"flapWindow", &out.flap_window},
                                                      {"recurrenceWindow", &out.recurrence_window}};
  Map(node, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (const auto i = ints.find(key); i != ints.end()) {
      Int(v, p, *i->second.first, i->second.second);
    } else if (const auto d = durations.find(key); d != durations.end()) {
      DurationField(v, p, *d->second);
    } else if (key == "breakerResetAt") {
      TimeField(v, p, out.breaker_reset_at);
    } else {
      return false;
    }
    return true;
  });
}

void ConfigReader::Document(const YAML::Node& node, Config& out) {
  const std::map<std::string, Duration*> durations = {
      {"drainTimeout", &out.drain_timeout},
      {"evictionRetry", &out.eviction_retry},
      {"validationTimeout", &out.validation_timeout},
      {"holdDown", &out.hold_down}};
  const std::map<std::string, bool*> bools = {
      {"dryRun", &out.dry_run}, {"forceDeleteAfterTimeout", &out.force_delete_after_timeout}};
  const std::map<std::string, std::string*> strings = {
      {"poolLabel", &out.pool_label}, {"failureDomainLabel", &out.failure_domain_label}};
  Map(node, "", [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    if (const auto d = durations.find(key); d != durations.end()) {
      DurationField(v, p, *d->second);
    } else if (const auto b = bools.find(key); b != bools.end()) {
      Bool(v, p, *b->second);
    } else if (const auto s = strings.find(key); s != strings.end()) {
      *s->second = Scalar(v, p);
    } else if (key == "rails") {
      Rails(v, p, out.rails);
    } else if (key == "steps") {
      Steps(v, p, out.steps);
    } else if (key == "validation") {
      Map(v, p, [&](const std::string& vkey, const YAML::Node& vv, const std::string& vp) {
        if (vkey != "command") return false;
        Strings(vv, vp, out.validation_command);
        if (ok() && out.validation_command.empty()) Fail(vp, "must not be empty");
        return true;
      });
    } else if (key == "policy") {
      Map(v, p, [&](const std::string& type, const YAML::Node& entry, const std::string& ep) {
        bool enabled = true;
        if (entry.IsMap() && entry["enabled"]) Bool(entry["enabled"], ep + ".enabled", enabled);
        if (!enabled) {
          out.policy.erase(type);
        } else {
          Policy(entry, ep, out.policy[type]);  // a new type starts from an empty entry
        }
        return true;
      });
    } else {
      return false;
    }
    return true;
  });
}

}  // namespace

Result<Config> ReadConfigYaml(std::string_view text) {
  Config config = DefaultConfig();
  YAML::Node document;
  try {
    document = YAML::Load(std::string(text));
  } catch (const std::exception& e) {
    return Result<Config>::Error(std::string("remediation config: not YAML: ") + e.what());
  }
  ConfigReader reader;
  try {
    reader.Document(document, config);
  } catch (const std::exception& e) {  // yaml-cpp's accessors on a broken tree
    reader.Fail("(document)", e.what());
  }
  if (!reader.ok()) return Result<Config>::Error("remediation config: " + reader.error());
  if (Status steps = CheckStepsDefined(config); !steps.ok()) {
    return Result<Config>::Error("remediation config: " + steps.message());
  }
  if (config.rails.backoff_max < config.rails.backoff_base) {
    return Result<Config>::Error(
        "remediation config: rails.backoffMax: must not be below rails.backoffBase");
  }
  return config;
}

}  // namespace quotient::remediation
