#include "fake_oracle.h"

#include <fstream>

#include "case.h"
#include "engines.h"

namespace quotient::kaidiff {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json Scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted
  if (text == "true" || text == "false") return text == "true";
  if (text == "null" || text == "~" || text.empty()) return nullptr;
  try {
    return node.as<int64_t>();
  } catch (const YAML::Exception&) {
  }
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
  }
  return text;
}

// Rewrites the cluster file (the last argument) with every queue weight 1.
std::vector<std::string> WeightsOne(std::vector<std::string> args, const fs::path& scratch) {
  std::vector<json> objects;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(args.back())) {
    json o = YamlToJson(doc);
    if (o.is_object() && o.value("kind", "") == "Queue" && o["spec"].contains("resources")) {
      for (auto& [name, resource] : o["spec"]["resources"].items()) {
        if (resource.is_object() && resource.contains("overQuotaWeight")) {
          resource["overQuotaWeight"] = 1;
        }
      }
    }
    if (!o.is_null()) objects.push_back(o);
  }
  const fs::path file = scratch / "fake-oracle-cluster.yaml";
  std::ofstream(file) << ToYaml(objects);
  args.back() = file.string();
  return args;
}

void DropLast(json& report, const std::string& kind, bool first_cycle_only) {
  for (json& cycle : report["cycles"]) {
    json& decisions = cycle["decisions"];
    for (size_t i = decisions.size(); i-- > 0;) {
      if (decisions[i].value("kind", "") == kind) {
        decisions.erase(i);
        break;
      }
    }
    if (first_cycle_only) break;
  }
}

}  // namespace

json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& item : node) out[item.first.as<std::string>()] = YamlToJson(item.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(YamlToJson(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      return Scalar(node);
    default:
      return nullptr;
  }
}

int RunFakeOracle(const fs::path& quotient, const std::string& perturbation,
                  const fs::path& scratch, std::istream& in, std::ostream& out) {
  fs::create_directories(scratch);
  QuotientEngine engine(quotient, scratch);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    json reply;
    try {
      const json request = json::parse(line);
      reply["id"] = request.at("id");
      std::vector<std::string> args = request.at("args").get<std::vector<std::string>>();
      if (perturbation == "weights-one") args = WeightsOne(args, scratch);
      RunAnswer answer = engine.RunOne({reply["id"], args});
      if (!answer.report) {
        reply["error"] = answer.error;
      } else {
        json& report = *answer.report;
        const std::string id = reply["id"];
        if (perturbation == "drop-last-eviction") DropLast(report, "evict", false);
        if (perturbation == "alternate" && id.size() > 2 && id.substr(id.size() - 2) == "#1") {
          DropLast(report, "bind", true);
        }
        reply["report"] = report;
      }
    } catch (const std::exception& e) {
      reply["error"] = std::string("fake oracle: ") + e.what();
    }
    out << reply.dump() << std::endl;
  }
  return 0;
}

}  // namespace quotient::kaidiff
