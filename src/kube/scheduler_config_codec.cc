#include "kube/scheduler_config_codec.h"

#include <algorithm>

#include "kube/loader.h"
#include "kube/text_formats.h"
#include "kube/value.h"

namespace quotient::kube {
namespace {

using Config = framework::SchedulerConfig;

constexpr std::string_view kKnownActions[] = {"allocate", "consolidation", "reclaim", "preempt",
                                              "stalegangeviction"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Turns a scalar into its text; false for maps, lists and null.
bool ScalarText(const Value& value, std::string& out) {
  switch (value.type()) {
    case Value::Type::kString:
    case Value::Type::kNumber:
      out = value.text();
      return true;
    case Value::Type::kBool:
      out = value.bool_value() ? "true" : "false";
      return true;
    default:
      return false;
  }
}

Status ParseActions(const Value& value, Config& config) {
  if (value.is_null()) return Status::Ok();
  if (value.type() != Value::Type::kString) {
    return Status::Error("actions: expected a comma-separated string");
  }
  std::vector<std::string> actions;
  std::vector<std::string> unknown;
  std::string_view rest = value.text();
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view name = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (name.empty()) continue;
    if (std::find(std::begin(kKnownActions), std::end(kKnownActions), name) ==
        std::end(kKnownActions)) {
      unknown.emplace_back(name);
    }
    actions.emplace_back(name);
  }
  if (!unknown.empty()) {
    std::string message = "actions: unknown action";
    message += unknown.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < unknown.size(); ++i)
      message += (i > 0 ? ", \"" : "\"") + unknown[i] + "\"";
    return Status::Error(message +
                         " (valid: allocate, consolidation, reclaim, preempt, stalegangeviction)");
  }
  if (!actions.empty()) config.actions = std::move(actions);
  return Status::Ok();
}

// nodeplacement's arguments: `gpu` and `cpu`, or `<pool>.gpu` and `<pool>.cpu` for one node
// pool; binpack or spread, and for GPUs also fragmentation. Anything else would silently mean
// bin-pack, so it is refused.
Status CheckNodePlacement(const framework::PluginOption& plugin, const std::string& field) {
  for (const auto& [key, value] : plugin.arguments) {
    const size_t dot = key.rfind('.');
    const std::string resource = dot == std::string::npos ? key : key.substr(dot + 1);
    const std::string where = field + ".arguments." + key;
    if ((resource != "gpu" && resource != "cpu") || dot == 0) {
      return Status::Error(where + ": unknown argument (valid: gpu, cpu, <node pool>.gpu, " +
                           "<node pool>.cpu)");
    }
    const bool known =
        value == "binpack" || value == "spread" || (resource == "gpu" && value == "fragmentation");
    if (!known) {
      return Status::Error(where + ": unknown strategy \"" + value + "\" (valid: binpack, spread" +
                           (resource == "gpu" ? ", fragmentation)" : ")"));
    }
  }
  return Status::Ok();
}

Result<framework::PluginOption> ParsePlugin(const Value& value, const std::string& field) {
  using R = Result<framework::PluginOption>;
  if (!value.is_mapping()) return R::Error(field + ": expected a map");
  framework::PluginOption plugin;
  const Value* name = value.Find("name");
  if (name == nullptr || name->type() != Value::Type::kString || name->text().empty()) {
    return R::Error(field + ".name: missing or not a string");
  }
  plugin.name = name->text();
  const Value* arguments = value.Find("arguments");
  if (arguments == nullptr || arguments->is_null()) return plugin;
  if (!arguments->is_mapping()) return R::Error(field + ".arguments: expected a map");
  for (size_t i = 0; i < arguments->size(); ++i) {
    const std::string& key = arguments->keys()[i];
    std::string text;
    if (!ScalarText(arguments->items()[i], text)) {
      return R::Error(field + ".arguments." + key + ": expected a string, number or bool");
    }
    plugin.arguments[key] = std::move(text);
  }
  if (plugin.name == "nodeplacement") {
    if (Status checked = CheckNodePlacement(plugin, field); !checked.ok()) {
      return R::Error(checked.message());
    }
  }
  return plugin;
}

Status ParseTiers(const Value& value, Config& config) {
  if (value.is_null()) return Status::Ok();
  if (!value.is_sequence()) return Status::Error("tiers: expected a list");
  std::vector<framework::Tier> tiers;
  for (size_t t = 0; t < value.size(); ++t) {
    const std::string tier_field = "tiers[" + std::to_string(t) + "]";
    const Value& tier_value = value.items()[t];
    if (!tier_value.is_mapping()) return Status::Error(tier_field + ": expected a map");
    framework::Tier tier;
    const Value* plugins = tier_value.Find("plugins");
    if (plugins != nullptr && !plugins->is_null() && !plugins->is_sequence()) {
      return Status::Error(tier_field + ".plugins: expected a list");
    }
    for (size_t p = 0; plugins != nullptr && p < plugins->size(); ++p) {
      Result<framework::PluginOption> plugin =
          ParsePlugin(plugins->items()[p], tier_field + ".plugins[" + std::to_string(p) + "]");
      if (!plugin.ok()) return plugin.status();
      tier.plugins.push_back(std::move(plugin).value());
    }
    tiers.push_back(std::move(tier));
  }
  config.tiers = std::move(tiers);
  return Status::Ok();
}

Status ParseQueueDepth(const Value& value, Config& config) {
  if (value.is_null()) return Status::Ok();
  if (!value.is_mapping()) return Status::Error("queueDepthPerAction: expected a map");
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string& action = value.keys()[i];
    const Value& depth = value.items()[i];
    Result<int64_t> parsed =
        depth.type() == Value::Type::kNumber
            ? ParseDecimalInteger(depth.text(), 0, INT32_MAX)
            : Result<int64_t>::Error("expected an integer, got " +
                                     std::string(Value::TypeName(depth.type())));
    if (!parsed.ok())
      return Status::Error("queueDepthPerAction." + action + ": " + parsed.message());
    config.queue_depth_per_action[action] = static_cast<int>(parsed.value());
  }
  return Status::Ok();
}

Status ParseDocument(const Value& doc, Config& config) {
  if (!doc.is_mapping()) {
    return Status::Error("expected a map at the top level, got " +
                         std::string(Value::TypeName(doc.type())));
  }
  if (const Value* actions = doc.Find("actions")) {
    if (Status s = ParseActions(*actions, config); !s.ok()) return s;
  }
  if (const Value* tiers = doc.Find("tiers")) {
    if (Status s = ParseTiers(*tiers, config); !s.ok()) return s;
  }
  if (const Value* depth = doc.Find("queueDepthPerAction")) {
    if (Status s = ParseQueueDepth(*depth, config); !s.ok()) return s;
  }
  if (const Value* n = doc.Find("maxConsolidationPreemptees"); n != nullptr && !n->is_null()) {
    Result<int64_t> parsed = n->type() == Value::Type::kNumber
                                 ? ParseDecimalInteger(n->text(), 0, INT32_MAX)
                                 : Result<int64_t>::Error("expected an integer");
    if (!parsed.ok()) return Status::Error("maxConsolidationPreemptees: " + parsed.message());
    config.max_consolidation_preemptees = static_cast<int>(parsed.value());
  }
  if (const Value* g = doc.Find("defaultStalenessGracePeriod"); g != nullptr && !g->is_null()) {
    Result<std::chrono::seconds> parsed = ParseGoDuration(g->text());
    if (!parsed.ok()) return Status::Error("defaultStalenessGracePeriod: " + parsed.message());
    config.staleness_grace_period = parsed.value();
  }
  if (const Value* t = doc.Find("stuckInReleasingThreshold"); t != nullptr && !t->is_null()) {
    Result<std::chrono::nanoseconds> parsed = core::ParseGoDurationNanos(t->text());
    if (!parsed.ok()) return Status::Error("stuckInReleasingThreshold: " + parsed.message());
    // KAI's flag falls back to its 2m default for 0 or less; in a file that is a mistake.
    if (parsed.value() <= std::chrono::nanoseconds(0)) {
      return Status::Error("stuckInReleasingThreshold: must be a positive duration, got \"" +
                           t->text() + "\"");
    }
    // Deletion times are whole seconds, so "more than 90.5s ago" is "more than 90s ago".
    config.stuck_in_releasing_threshold =
        std::chrono::duration_cast<std::chrono::seconds>(parsed.value());
  }
  if (const Value* name = doc.Find("schedulerName"); name != nullptr && !name->is_null()) {
    if (name->type() != Value::Type::kString || name->text().empty()) {
      return Status::Error("schedulerName: expected a non-empty string");
    }
    config.scheduler_name = name->text();
  }
  return Status::Ok();
}

}  // namespace

Result<framework::SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text,
                                                        std::string_view source) {
  using R = Result<Config>;
  const std::string prefix = source.empty() ? std::string() : std::string(source) + ": ";
  Result<std::vector<Value>> docs = ParseYamlDocuments(yaml_text);
  if (!docs.ok()) return R::Error(prefix + "YAML syntax error: " + docs.message());
  Config config;
  if (docs.value().empty()) return config;
  if (docs.value().size() > 1) return R::Error(prefix + "expected one YAML document");
  if (Status s = ParseDocument(docs.value().front(), config); !s.ok()) {
    return R::Error(prefix + s.message());
  }
  return config;
}

Result<framework::SchedulerConfig> LoadSchedulerConfigFile(const std::string& path) {
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return Result<Config>::Error(path + ": " + text.message());
  return ParseSchedulerConfig(text.value(), path);
}

}  // namespace quotient::kube
