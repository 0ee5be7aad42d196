#include "case.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace quotient::kaidiff {
namespace {

// A plain "8", "1.5", "-1", "true" or "null" would read back as a number, a boolean or null
// where a string is meant (YAML 1.1 readers also take yes/no/on/off): such strings are quoted,
// like everything starting with a digit, a sign or a dot. yaml-cpp quotes the rest (colons,
// indicators) by itself when needed.
bool NeedsQuotes(const std::string& text) {
  if (text.empty()) return true;
  const char c = text.front();
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
    return true;
  }
  std::string lower;
  for (char ch : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return true;
  }
  return false;
}

void Emit(YAML::Emitter& out, const nlohmann::json& value) {
  if (value.is_object()) {
    if (value.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (auto it = value.begin(); it != value.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      Emit(out, it.value());
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    if (value.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const nlohmann::json& item : value) Emit(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (NeedsQuotes(text)) out << YAML::DoubleQuoted;
    out << text;
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans as JSON writes them
  }
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

std::string Case::Id() const { return "s" + std::to_string(seed) + "-c" + std::to_string(index); }

bool Case::HasTag(const std::string& tag) const {
  return std::binary_search(tags.begin(), tags.end(), tag);
}

const std::vector<std::string>& AllActions() {
  static const std::vector<std::string> kActions = {"allocate", "consolidation", "reclaim",
                                                    "preempt", "stalegangeviction"};
  return kActions;
}

std::string ToYaml(const nlohmann::json& object) {
  YAML::Emitter emitter;
  Emit(emitter, object);
  return std::string(emitter.c_str()) + "\n";
}

std::string ToYaml(const std::vector<nlohmann::json>& objects) {
  std::string out;
  for (const nlohmann::json& object : objects) out += "---\n" + ToYaml(object);
  return out;
}

void WriteCaseFiles(const Case& c, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  WriteFile(dir / "cluster.yaml", ToYaml(c.objects));
  if (c.run.config) WriteFile(dir / "config.yaml", ToYaml(*c.run.config));
}

std::vector<std::string> ScheduleArgs(const Case& c, const std::string& dir) {
  std::vector<std::string> args;
  if (c.run.config) args.insert(args.end(), {"--config", dir + "/config.yaml"});
  std::string actions;
  for (const std::string& a : c.run.actions) actions += (actions.empty() ? "" : ",") + a;
  args.insert(args.end(), {"--actions", actions, "--cycles", std::to_string(c.run.cycles),
                           "--scheduler-name", kSchedulerName, "--now", kNow});
  if (c.run.delete_evicted) args.push_back("--delete-evicted");
  args.insert(args.end(), {"-o", "json", dir + "/cluster.yaml"});
  return args;
}

}  // namespace quotient::kaidiff
