#include "generate/cluster_generator.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

#include "generate/kube_objects.h"

namespace quotient::generate {
namespace {

// One object as a YAML document. Every string is double-quoted: the loader, like YAML 1.1
// readers, would take a plain 8 or true for a number or a boolean where a string is meant.
void EmitYaml(YAML::Emitter& out, const nlohmann::json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (auto it = value.begin(); it != value.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      EmitYaml(out, it.value());
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const nlohmann::json& item : value) EmitYaml(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << YAML::DoubleQuoted << value.get_ref<const std::string&>();
  } else {
    out << value.dump();  // integers and booleans exactly as JSON writes them
  }
}

}  // namespace

void ForEachObject(const ClusterPlan& plan, const std::function<void(nlohmann::json)>& visit) {
  int64_t ordinal = 0;
  for (const PlannedPriorityClass& c : plan.priority_classes) {
    visit(PriorityClassObject(c, ordinal++));
  }
  for (const PlannedQueue& q : plan.queues) visit(QueueObject(q, ordinal++));
  for (const PlannedNode& n : plan.nodes) visit(NodeObject(n, ordinal++));
  for (const PlannedPodGroup& g : plan.pod_groups) visit(PodGroupObject(g, ordinal++));
  for (const PlannedPod& p : plan.pods) visit(PodObject(p, ordinal++));
}

nlohmann::json ClusterList(const ClusterPlan& plan) {
  nlohmann::json items = nlohmann::json::array();
  ForEachObject(plan, [&](nlohmann::json object) { items.push_back(std::move(object)); });
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

void WriteObjects(const std::function<void(const ObjectVisitor&)>& for_each, OutputFormat format,
                  std::ostream& out) {
  if (format == OutputFormat::kYaml) {
    for_each([&](const nlohmann::json& object) {
      YAML::Emitter emitter;
      EmitYaml(emitter, object);
      out << "---\n" << emitter.c_str() << "\n";
    });
    return;
  }
  // The List is framed here so that each item can be dumped (by nlohmann) and dropped in turn:
  // one item per line, which also keeps the file friendly to grep, head and diff.
  out << R"({"apiVersion":"v1","kind":"List","items":[)";
  bool first = true;
  for_each([&](const nlohmann::json& object) {
    out << (first ? "\n" : ",\n") << object.dump();
    first = false;
  });
  out << "\n]}\n";
}

void WriteCluster(const ClusterPlan& plan, OutputFormat format, std::ostream& out) {
  WriteObjects([&plan](const ObjectVisitor& visit) { ForEachObject(plan, visit); }, format, out);
}

Result<nlohmann::json> GenerateCluster(const ClusterSpec& spec) {
  Result<ClusterPlan> plan = PlanCluster(spec);
  if (!plan.ok()) return plan.status();
  return ClusterList(plan.value());
}

Result<std::string> GenerateClusterText(const ClusterSpec& spec, OutputFormat format) {
  Result<ClusterPlan> plan = PlanCluster(spec);
  if (!plan.ok()) return plan.status();
  std::ostringstream out;
  WriteCluster(plan.value(), format, out);
  return std::move(out).str();
}

}  // namespace quotient::generate
